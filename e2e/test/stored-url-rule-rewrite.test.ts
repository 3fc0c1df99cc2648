import type { Frame, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from '../src/support/axe.js';
import { browserAvailable } from '../src/support/browser.js';
import { approveLmsAuthorization, launchIntoToolFrame, PAGE_TIMEOUT_MS } from '../src/support/tool-frame.js';
import { ENGLISH_WORDS, TeacherSession, type ConnectWords } from './teacher-session.js';

/**
 * URL rules saved before today's save-time checks, straight into the database as such a save left them: the teacher's
 * assessment list and the administrator's course detail mark them ("a URL rule the exam browser reads differently",
 * the rule and why), one click rewrites a rule that has a faithful form, the mark is then gone and the audit trail
 * shows the rewrite; a rule without one leads the teacher to it in the editor. In English and German, also 360 px wide.
 */

const COURSE = '101';
const CONTENT_ID = 'classicquiz_201';
/** A course rule with a faithful form: `+` in the query is a space. */
const PLUS = 'https://library.example.edu/search?q=cell+biology';
const PLUS_FAITHFUL = 'https://library.example.edu/search?q=cell%20biology';
/** A course rule without one: the path `/` allows the whole site. */
const WHOLE_HOST = 'https://library.example.edu/?lang=en';
/** What the teacher changes the rule without one to: one page of that site. */
const CHANGED = 'https://library.example.edu/catalog?lang=en';
/** The midterm's own rule with a faithful form: `%2F` in the query is a `/`. */
const ENCODED = 'https://reader.example.edu/open?file=%2Fnotes%2Fweek1';
const ENCODED_FAITHFUL = 'https://reader.example.edu/open?file=/notes/week1';
/** The midterm's own rule without one: a `+` in the path is a plus to the site, a space to the exam browser. */
const PATH_PLUS = 'https://reader.example.edu/c++/intro';

const GERMAN: ConnectWords = { authorize: 'Tool im LMS autorisieren', refresh: 'Aus dem LMS aktualisieren', connected: /^LMS:\s*Verbunden$/ };

const LANGUAGES = [
  {
    locale: 'en' as const,
    words: ENGLISH_WORDS,
    title: 'A URL rule the exam browser reads differently',
    reason: 'The exam browser decodes addresses before it compares them',
    wholeHostReason: 'The exam browser allows every page of a site',
    rewrite: 'Rewrite the rule',
    change: 'Change the rule',
    courseHeading: 'Course defaults: URL rules to check',
    defaultsTab: 'Course defaults',
    address: 'Page address',
    websites: 'Allowed websites',
    save: 'Save course defaults',
    saved: 'Course defaults saved.',
    assessmentsTab: 'Assessments',
    activity: 'Activity',
    rewritten: 'URL rule rewritten as the exam browser reads it',
    admin: { authorize: 'Authorize administrator access in the LMS', courses: 'Connected courses',
      back: 'All courses', audit: 'Audit trail', auditTable: /Audit trail entries/, refresh: 'Refresh from LMS' },
  },
  {
    locale: 'de' as const,
    words: GERMAN,
    title: 'Eine URL-Regel, die der Exam-Browser anders liest',
    reason: 'Der Exam-Browser dekodiert Adressen, bevor er sie vergleicht',
    wholeHostReason: 'lässt der Exam-Browser jede Seite der Website zu',
    rewrite: 'Regel umschreiben',
    change: 'Regel ändern',
    courseHeading: 'Kursvorgaben: zu prüfende URL-Regeln',
    defaultsTab: 'Kursvorgaben',
    address: 'Adresse der Seite',
    websites: 'Zugelassene Websites',
    save: 'Kursvorgaben speichern',
    saved: 'Kursvorgaben gespeichert.',
    assessmentsTab: 'Prüfungen',
    activity: 'Aktivität',
    rewritten: 'URL-Regel so umgeschrieben, wie der Exam-Browser sie liest',
    admin: {
      authorize: 'Administrationszugriff im LMS autorisieren',
      courses: 'Verbundene Kurse',
      back: 'Alle Kurse',
      audit: 'Änderungsprotokoll',
      auditTable: /Protokolleinträge/,
      refresh: 'Aus dem LMS aktualisieren',
    },
  },
];

/** Lets the tool's transitions (a tab panel or an alert fading in) finish, so a screenshot shows the settled page. */
async function settled(frame: Frame, page: Page): Promise<void> {
  await frame.evaluate(() =>
    Promise.allSettled(
      document
        .getAnimations()
        .filter((animation) => animation.effect?.getComputedTiming().iterations !== Infinity)
        .map((animation) => animation.finished),
    ),
  );
  await page.waitForTimeout(350);
}

/** How wide the tool's frame is in the narrow steps: a phone held upright. */
const NARROW = { width: 360, height: 800 };
const WIDE = { width: 1100, height: 900 };

for (const language of LANGUAGES) {
  describe.runIf(browserAvailable())(`stored URL rules the exam browser reads differently, rewritten (${language.locale})`, { timeout: 180_000 }, () => {
    let s: TeacherSession;

    beforeAll(async () => {
      s = await TeacherSession.start({
        screenshotsVariable: 'STORED_URL_RULE_REWRITE_SCREENSHOTS',
        ...(language.locale === 'de' ? { locale: 'de' as const } : {}),
      });
      // The administrator speaks the same language as the teacher.
      if (language.locale === 'de') s.lms.state.users.get(1)!.locale = 'de';
      // As a save before the refusals stored them: past today's validator, straight into the tables.
      await s.settings.saveCourseDefaults(COURSE, {
        courseId: COURSE,
        urlRules: [
          { match: 'exact', value: PLUS },
          { match: 'exact', value: WHOLE_HOST },
        ],
        externalTools: [],
        startPassword: null,
        exitPassword: 'rule-walk-exit-1',
        setupCompleted: true,
      });
      await s.settings.saveAssessmentSettings(COURSE, {
        courseId: COURSE,
        contentId: CONTENT_ID,
        exbRequired: false,
        enabled: false,
        accessCode: null,
        usesCourseDefaults: false,
        urlRules: [
          { match: 'exact', value: ENCODED },
          { match: 'exact', value: PATH_PLUS },
        ],
        externalToolIds: null,
        quizOnlyTools: [],
        startPasswordOverride: null,
        exitPasswordOverride: null,
        verificationStatus: 'unverified',
        version: 0,
        updatedAt: null,
      } as Parameters<TeacherSession['settings']['saveAssessmentSettings']>[1]);
    }, 120_000);
    afterAll(async () => {
      await s?.close();
    });
    afterEach(async (test) => {
      if (test.task.result?.state === 'fail' && s?.tool) await s.screenshot(`failed-${language.locale}-${test.task.name.replace(/\W+/g, '-')}`).catch(() => {});
    });

    /** The notice of one marked rule: the block that names it. */
    const notice = (scope: Frame | Locator, value: string) =>
      scope.locator('div').filter({ has: s.tool.getByText(language.title, { exact: true }) }).filter({ has: s.tool.locator('code', { hasText: value }) }).last();

    async function narrowShot(page: Page, name: string, shot: (name: string) => Promise<void>, frame: Frame) {
      await page.setViewportSize(NARROW);
      await shot(name);
      // Nothing sideways: a long address breaks instead of widening the stacked rows.
      expect(await frame.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
      await page.setViewportSize(WIDE);
    }

    it('the teacher’s assessment list marks the stored rules, with the rule and why', async () => {
      await s.connect(language.words);
      const courseBlock = s.tool.getByRole('region', { name: language.courseHeading });
      await s.visible(courseBlock, PAGE_TIMEOUT_MS);
      const plus = notice(courseBlock, PLUS);
      await s.visible(plus);
      await s.visible(plus.getByText(language.reason, { exact: false }));
      await s.visible(plus.locator('code', { hasText: PLUS_FAITHFUL }));
      await s.visible(plus.getByRole('button', { name: language.rewrite }));
      const wholeHost = notice(courseBlock, WHOLE_HOST);
      await s.visible(wholeHost.getByText(language.wholeHostReason, { exact: false }));
      expect(await wholeHost.getByRole('button', { name: language.rewrite }).count()).toBe(0);
      await s.visible(wholeHost.getByRole('button', { name: language.change }));
      // The midterm's own rule, beside its verification in its row.
      const row = s.tool.getByRole('row').filter({ hasText: 'Midterm exam' }).first();
      await s.visible(notice(row, ENCODED));
      await settled(s.tool, s.page);
      await s.screenshot(`${language.locale}-01-teacher-marked`);
      await narrowShot(s.page, `${language.locale}-02-teacher-marked-360`, (name) => s.screenshot(name), s.tool);
      expect(await seriousViolations(s.page, { frame: 'iframe#tool_content' })).toEqual([]);
    });

    it('one click rewrites the midterm’s own rule and the course rule; the marks are gone', async () => {
      const row = s.tool.getByRole('row').filter({ hasText: 'Midterm exam' }).first();
      await notice(row, ENCODED).getByRole('button', { name: language.rewrite }).click();
      await expect.poll(() => row.locator('code', { hasText: ENCODED }).count(), { timeout: 10_000 }).toBe(0);
      const courseBlock = s.tool.getByRole('region', { name: language.courseHeading });
      await notice(courseBlock, PLUS).getByRole('button', { name: language.rewrite }).click();
      await expect.poll(() => courseBlock.locator('code', { hasText: PLUS }).count(), { timeout: 10_000 }).toBe(0);
      expect((await s.settings.loadAssessmentSettings(COURSE, CONTENT_ID))?.urlRules.map((rule) => rule.value)).toEqual([ENCODED_FAITHFUL, PATH_PLUS]);
      expect((await s.settings.loadCourseDefaults(COURSE))?.urlRules.map((rule) => rule.value)).toEqual([PLUS_FAITHFUL, WHOLE_HOST]);
      await settled(s.tool, s.page);
      await s.screenshot(`${language.locale}-03-teacher-rewritten`);
      expect(await seriousViolations(s.page, { frame: 'iframe#tool_content' })).toEqual([]);
    });

    it('the midterm’s own rule without a faithful form opens its settings at the websites, where the Activity panel shows the rewrite', async () => {
      const row = s.tool.getByRole('row').filter({ hasText: 'Midterm exam' }).first();
      await notice(row, PATH_PLUS).getByRole('button', { name: language.change }).click();
      // The settings name the rule and why at the top; the form knows saved rules only as hosts, so the focus goes to
      // the websites section, where the teacher replaces the list.
      await s.visible(notice(s.tool, PATH_PLUS).getByText(language.reason, { exact: false }), PAGE_TIMEOUT_MS);
      await expect.poll(() => s.tool.evaluate(() => document.activeElement?.textContent ?? null), { timeout: 10_000 }).toBe(language.websites);
      await settled(s.tool, s.page);
      await s.screenshot(`${language.locale}-04-teacher-editor-at-rule`);
      const panel = s.tool.getByTestId('activity-panel');
      await s.visible(panel.getByRole('heading', { name: language.activity }), PAGE_TIMEOUT_MS);
      await s.visible(panel.getByText(language.rewritten));
      await panel.scrollIntoViewIfNeeded();
      await s.screenshotOf(panel, `${language.locale}-04-teacher-activity-panel`);
      await s.tool.getByRole('button', { name: language.locale === 'de' ? 'Alle Prüfungen' : 'All assessments' }).click();
    });

    it('a rule without a faithful form leads to its field in the course defaults', async () => {
      const courseBlock = s.tool.getByRole('region', { name: language.courseHeading });
      await notice(courseBlock, WHOLE_HOST).getByRole('button', { name: language.change }).click();
      await expect.poll(() => s.tool.evaluate(() => (document.activeElement as HTMLInputElement | null)?.value ?? null), { timeout: 10_000 }).toBe(WHOLE_HOST);
      await settled(s.tool, s.page);
      await s.screenshot(`${language.locale}-05-teacher-change-rule`);
      // Changed to one page and saved, the rule is marked no more in the assessment list either.
      const field = s.tool.getByRole('textbox', { name: language.address }).nth(1);
      expect(await field.inputValue()).toBe(WHOLE_HOST);
      await field.fill(CHANGED);
      await s.tool.getByRole('button', { name: language.save, exact: true }).click();
      await s.visible(s.tool.getByText(language.saved));
      await s.tool.getByRole('tab', { name: language.assessmentsTab }).click();
      await expect.poll(() => s.tool.getByRole('region', { name: language.courseHeading }).count(), { timeout: 10_000 }).toBe(0);
      expect((await s.settings.loadCourseDefaults(COURSE))?.urlRules.map((rule) => rule.value)).toEqual([PLUS_FAITHFUL, CHANGED]);
    });

    it('the administrator’s course detail marks the course rule left, and the audit trail shows the rewrites', async () => {
      const page = await s.context.newPage();
      const tool = await launchIntoToolFrame(page, s.lms.launchPageUrl, 'Launch as administrator', s.app.url!);
      const [popup] = await Promise.all([page.waitForEvent('popup'), tool.getByRole('button', { name: language.admin.authorize }).click({ timeout: PAGE_TIMEOUT_MS })]);
      await approveLmsAuthorization(popup, s.lms.baseUrl, s.app.url!);
      await tool.getByRole('tab', { name: language.admin.courses }).waitFor({ timeout: PAGE_TIMEOUT_MS });
      if (!popup.isClosed()) await popup.close();
      const connected = await tool.evaluate(async (courseId) => {
        const { actionToken } = JSON.parse(document.getElementById('exb-bootstrap')!.textContent!) as { actionToken: string };
        const response = await fetch('/api/admin/courses/connect', {
          method: 'POST',
          credentials: 'same-origin',
          headers: { 'content-type': 'application/json', 'x-exb-action-token': actionToken },
          body: JSON.stringify({ courseIds: [courseId] }),
        });
        return response.status;
      }, COURSE);
      expect(connected).toBe(200);
      // Launched again, the dashboard lists the course it now has connected.
      const frame = await launchIntoToolFrame(page, s.lms.launchPageUrl, 'Launch as administrator', s.app.url!);
      await frame.getByRole('button', { name: 'Biology 101' }).click({ timeout: PAGE_TIMEOUT_MS });
      await frame.getByRole('heading', { name: 'Biology 101', level: 2 }).waitFor({ timeout: PAGE_TIMEOUT_MS });

      // A rule with a faithful form, stored again as before, to rewrite from here.
      await s.settings.saveCourseDefaults(COURSE, {
        ...(await s.settings.loadCourseDefaults(COURSE))!,
        urlRules: [
          { match: 'exact', value: PLUS },
          { match: 'exact', value: WHOLE_HOST },
        ],
      });
      await frame.getByRole('button', { name: language.admin.refresh, exact: true }).click();
      const courseBlock = frame.getByRole('region', { name: language.courseHeading });
      await courseBlock.locator('code', { hasText: PLUS }).first().waitFor({ timeout: PAGE_TIMEOUT_MS });
      await courseBlock.getByText(language.wholeHostReason, { exact: false }).first().waitFor();
      // No editor here: the rule without a faithful form is explained only.
      expect(await courseBlock.getByRole('button', { name: language.change }).count()).toBe(0);

      const shot = async (name: string) => {
        await settled(frame, page);
        const height = await frame.evaluate(() => document.documentElement.scrollHeight);
        await page.evaluate((h) => void (document.querySelector<HTMLIFrameElement>('iframe#tool_content')!.style.height = `${h + 4}px`), height);
        await page.screenshot({ path: `${s.shots}/${name}.png`, fullPage: true });
        await page.evaluate(() => void (document.querySelector<HTMLIFrameElement>('iframe#tool_content')!.style.height = ''));
      };
      await shot(`${language.locale}-06-admin-marked`);
      await narrowShot(page, `${language.locale}-07-admin-marked-360`, shot, frame);
      expect(await seriousViolations(page, { frame: 'iframe#tool_content' })).toEqual([]);

      await courseBlock.getByRole('button', { name: language.rewrite }).click();
      await expect.poll(() => courseBlock.locator('code', { hasText: PLUS }).count(), { timeout: 10_000 }).toBe(0);
      expect((await s.settings.loadCourseDefaults(COURSE))?.urlRules.map((rule) => rule.value)).toEqual([PLUS_FAITHFUL, WHOLE_HOST]);
      await shot(`${language.locale}-08-admin-rewritten`);

      await frame.getByRole('button', { name: language.admin.back }).click();
      await frame.getByRole('tab', { name: language.admin.audit }).click();
      const table = frame.getByRole('table', { name: language.admin.auditTable });
      await table.waitFor({ timeout: PAGE_TIMEOUT_MS });
      await expect.poll(() => table.getByRole('row').filter({ hasText: language.rewritten }).count(), { timeout: 10_000 }).toBe(3);
      await shot(`${language.locale}-09-admin-audit`);
      await narrowShot(page, `${language.locale}-10-admin-audit-360`, shot, frame);
      expect(await seriousViolations(page, { frame: 'iframe#tool_content' })).toEqual([]);
      expect(s.problems).toEqual([]);
      await page.close();
    });
  });
}
