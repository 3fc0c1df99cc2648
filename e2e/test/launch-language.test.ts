import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { seriousViolations } from '../src/support/axe.js';
import { browserAvailable } from '../src/support/browser.js';
import { PAGE_TIMEOUT_MS } from '../src/support/tool-frame.js';
import { TeacherSession } from './teacher-session.js';

/**
 * The development LMS's launch page lets a newcomer try either language: the choice becomes the person's profile
 * language, which the launch carries to the tool and the LMS's own pages speak.
 */
describe.runIf(browserAvailable())('the language choice on the development LMS launch page', { timeout: 120_000 }, () => {
  let s: TeacherSession;
  afterAll(async () => {
    await s?.close();
  });

  async function launchIn(language: 'English' | 'Deutsch', shot: string): Promise<void> {
    await s.page.goto(s.lms.launchPageUrl);
    await s.page.getByLabel('Language of the person launching').selectOption({ label: language });
    await s.page.getByRole('button', { name: 'Use this language' }).click();
    await expect.poll(() => s.page.getByLabel('Language of the person launching').inputValue()).toBe(language === 'Deutsch' ? 'de' : 'en');
    expect(await seriousViolations(s.page)).toEqual([]);
    await s.page.screenshot({ path: path.join(s.shots, `${shot}-launch-page.png`), fullPage: true });
    await s.page.getByRole('button', { name: 'Launch as instructor', exact: true }).click();
    await expect.poll(() => s.page.frame({ name: 'tool_content' })?.url() ?? '', { timeout: PAGE_TIMEOUT_MS }).toContain(s.app.url!);
    s.tool = s.page.frame({ name: 'tool_content' })!;
  }

  it('launches the instructor in German when Deutsch is chosen, and in English again when English is', async () => {
    s = await TeacherSession.start({ screenshotsVariable: 'LAUNCH_LANGUAGE_SCREENSHOTS' });

    await launchIn('Deutsch', '01-de');
    await s.visible(s.tool.getByRole('heading', { name: 'Mit dem LMS verbinden' }), PAGE_TIMEOUT_MS);
    expect(await s.tool.evaluate(() => document.documentElement.lang)).toBe('de');
    expect(await s.page.evaluate(() => document.documentElement.lang)).toBe('de');
    expect(await seriousViolations(s.page, { frame: 'iframe#tool_content' })).toEqual([]);
    await s.screenshot('02-de-tool');

    await launchIn('English', '03-en');
    await s.visible(s.tool.getByRole('heading', { name: 'Connect to the LMS' }), PAGE_TIMEOUT_MS);
    expect(await s.tool.evaluate(() => document.documentElement.lang)).toBe('en');
    expect(await s.page.evaluate(() => document.documentElement.lang)).toBe('en');
    await s.screenshot('04-en-tool');

    await s.page.setViewportSize({ width: 360, height: 760 });
    await s.page.goto(`${s.lms.launchPageUrl}?locale=de`);
    await s.page.screenshot({ path: path.join(s.shots, '05-narrow-launch-page.png') });
  });
});
