import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable } from '../src/support/browser.js';
import { ENGLISH_WORDS, TeacherSession, type ConnectWords } from './teacher-session.js';

/**
 * A URL rule saved before today's save-time checks, which the exam browser reads differently than the page it names:
 * the teacher sees it marked at the rule, with why, in English and German, and saving the decoded form clears it.
 */
const STORED = 'https://tool.example.com/search?q=a+b';
const REPAIRED = 'https://tool.example.com/search?q=a%20b';

const GERMAN: ConnectWords = { authorize: 'Tool im LMS autorisieren', refresh: 'Aus dem LMS aktualisieren', connected: /^LMS:\s*Verbunden$/ };

const LANGUAGES = [
  {
    locale: 'en' as const,
    words: ENGLISH_WORDS,
    tab: 'Course defaults',
    row: 'Course website 1',
    address: 'Page address',
    mark: 'A URL rule the exam browser reads differently: The exam browser decodes addresses before it compares them',
    save: 'Save course defaults',
    saved: 'Course defaults saved.',
  },
  {
    locale: 'de' as const,
    words: GERMAN,
    tab: 'Kursvorgaben',
    row: 'Kurswebsite 1',
    address: 'Adresse der Seite',
    mark: 'Eine URL-Regel, die der Exam-Browser anders liest: Der Exam-Browser dekodiert Adressen, bevor er sie vergleicht',
    save: 'Kursvorgaben speichern',
    saved: 'Kursvorgaben gespeichert.',
  },
];

for (const language of LANGUAGES) {
  describe.runIf(browserAvailable())(`a stored URL rule the exam browser reads differently (${language.locale})`, { timeout: 120_000 }, () => {
    let s: TeacherSession;

    beforeAll(async () => {
      s = await TeacherSession.start({
        screenshotsVariable: 'STORED_URL_RULES_SCREENSHOTS',
        provokedRefusal: () => false,
        ...(language.locale === 'de' ? { locale: 'de' as const } : {}),
      });
      await s.settings.saveCourseDefaults('101', {
        courseId: '101',
        urlRules: [{ match: 'exact', value: STORED }],
        externalTools: [],
        startPassword: null,
        exitPassword: null,
        setupCompleted: false,
      });
    });
    afterAll(async () => {
      await s?.close();
    });
    afterEach(async (test) => {
      if (test.task.result?.state === 'fail' && s?.tool) await s.screenshot(`failed-${language.locale}-${test.task.name.replace(/\W+/g, '-')}`).catch(() => {});
    });

    it('is marked at the rule, with why, and the decoded form clears the mark when saved', async () => {
      await s.connect(language.words);
      await s.tool.getByRole('tab', { name: language.tab }).click();
      const row = s.tool.getByRole('group', { name: language.row });
      await s.visible(row.getByText(language.mark, { exact: false }));
      expect(await row.getByLabel(language.address).inputValue()).toBe(STORED);
      await s.screenshotOf(row, `${language.locale}-01-stored-rule-marked`);

      await row.getByLabel(language.address).fill(REPAIRED);
      await expect.poll(() => row.getByText(language.mark, { exact: false }).count()).toBe(0);
      await s.tool.getByRole('button', { name: language.save, exact: true }).click();
      await s.visible(s.tool.getByText(language.saved));
      expect((await s.settings.loadCourseDefaults('101'))?.urlRules).toEqual([expect.objectContaining({ match: 'exact', value: REPAIRED })]);
      await s.screenshotOf(row, `${language.locale}-02-stored-rule-repaired`);
      expect(s.problems).toEqual([]);
    });
  });
}
