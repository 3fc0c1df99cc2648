import { describe, expect, it } from 'vitest';
import { demoSeed, type LmsSeed } from '../src/lms/index.js';
import { browserAvailable } from '../src/support/browser.js';
import { PAGE_TIMEOUT_MS, waitForView } from '../src/support/tool-frame.js';
import { useAdminSession } from './admin-session.js';

/** A root-account administrator of the demo school whose LMS speaks German. */
const GERMAN_ADMIN = { id: 40, name: 'Greta Gruber', email: 'greta.gruber@example.edu', persona: 'administrator-de', label: 'German-speaking administrator', locale: 'de-DE' };

function germanSchool(): LmsSeed {
  const seed = demoSeed();
  return { ...seed, users: [...seed.users, GERMAN_ADMIN], accountAdmins: [...(seed.accountAdmins ?? []), { userId: GERMAN_ADMIN.id, accountId: 1 }] };
}

const LANGUAGES = [
  {
    lang: 'en',
    label: 'administrator',
    seed: undefined,
    title: 'Open the administration from the account navigation',
    explanation: 'The exam browser administration, for administrators of the root account, is in the account navigation',
    link: 'Open the accounts you administer in the LMS',
    contradiction: /does not give access/,
    authorize: 'Authorize administrator access in the LMS',
  },
  {
    lang: 'de',
    label: GERMAN_ADMIN.label,
    seed: germanSchool(),
    title: 'Die Administration öffnen Sie über die Kontonavigation',
    explanation: 'Die Exam-Browser-Administration für die Administration des Hauptkontos finden Sie in der Kontonavigation',
    link: 'Die von Ihnen verwalteten Konten im LMS öffnen',
    contradiction: /gewährt keinen Zugang/,
    authorize: 'Administrationszugriff im LMS autorisieren',
  },
] as const;

describe.runIf(browserAvailable()).each(LANGUAGES)('a root administrator who opens a course’s tab, in Chromium ($lang)', (words) => {
  // Screenshots of every step, to be looked at: `ADMIN_NAVIGATION_SCREENSHOTS` or a fresh temporary folder.
  const s = useAdminSession({
    name: `admin-course-navigation-${words.lang}`,
    screenshotsVariable: 'ADMIN_NAVIGATION_SCREENSHOTS',
    settleBeforeScreenshots: true,
    ...(words.seed ? { seed: words.seed } : {}),
  });

  it('is told that the administration is in the account navigation, without a contradiction', async () => {
    const tool = await s.launch(`Course navigation (Biology 101) as ${words.label}`);
    const data = await waitForView(tool, 'role-not-authorized');
    expect(data.link).toEqual({ href: `${s.lms.baseUrl}/accounts`, text: words.link });
    await s.visible(tool.getByRole('heading', { name: words.title }), PAGE_TIMEOUT_MS);
    await s.visible(tool.getByText(words.explanation, { exact: false }));
    expect(await tool.getByText(words.contradiction).count()).toBe(0);
    expect(await tool.evaluate(() => document.documentElement.lang)).toBe(words.lang);
    await s.screenshot(`${words.lang}-01-course-tab-refusal`);
    expect(await s.accessibilityViolations()).toEqual([]);
    // A phone-wide frame keeps the whole message without scrolling sideways.
    const margin = await s.page.evaluate(() => window.innerWidth - document.querySelector('iframe#tool_content')!.getBoundingClientRect().width);
    await s.page.setViewportSize({ width: Math.round(360 + margin), height: 900 });
    await expect.poll(() => s.fitsWidth(), { timeout: PAGE_TIMEOUT_MS }).toBe(true);
    await s.screenshot(`${words.lang}-02-course-tab-refusal-360px`);
    await s.page.setViewportSize({ width: 1100, height: 900 });
  });

  it('follows the link to the accounts it administers, and from the root account’s navigation to the administration', async () => {
    await s.tool.getByRole('link', { name: words.link }).click();
    // The link replaces the LMS page (the tool sits in its frame): the LMS's own list of the administered accounts.
    await s.page.waitForURL(`${s.lms.baseUrl}/accounts`, { timeout: PAGE_TIMEOUT_MS });
    await s.page.locator('#content').getByRole('link', { name: 'Example University' }).click();
    await s.page.getByRole('navigation', { name: 'Account navigation' }).getByRole('link', { name: 'Exam browser administration' }).click();
    await s.page.waitForURL(/\/accounts\/1\/external_tools\/\d+$/, { timeout: PAGE_TIMEOUT_MS });
    const frame = s.page.frame({ name: 'tool_content' })!;
    await waitForView(frame, 'admin');
    await s.visible(frame.getByRole('button', { name: words.authorize }), PAGE_TIMEOUT_MS);
    s.tool = frame;
    await s.screenshot(`${words.lang}-03-administration-from-account-navigation`);
    expect(s.problems).toEqual([]);
  });
});
