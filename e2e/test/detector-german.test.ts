import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoSeed } from '../src/lms/index.js';
import { seriousViolations } from '../src/support/axe.js';
import { browserAvailable, launchBrowser, type LaunchedBrowser } from '../src/support/browser.js';
import { CONTENT_ID, COURSE, QUIZ, startEnforcedQuiz, type EnforcedQuiz } from './enforced-quiz.js';
import { openLmsTab, settled, takeQuiz } from './lms-tab.js';

const PANEL = 'aside[data-exb-panel]';
/** A student of course 101 whose LMS account is set to German: the LMS's pages declare `lang="de"`. */
const GERMAN_STUDENT = { id: 40, name: 'Greta Gruber', email: 'greta.gruber@example.edu', persona: 'student-de', label: 'student (German)', locale: 'de' };
const NARROW = { width: 360, height: 740 };

/** Set `E2E_SCREENSHOT_DIR` to keep screenshots of the German pages for a look. */
const SCREENSHOT_DIR = process.env.E2E_SCREENSHOT_DIR;

async function screenshot(page: Page, name: string): Promise<void> {
  if (!SCREENSHOT_DIR) return;
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true, animations: 'disabled' });
}

describe.runIf(browserAvailable())('the detector and the service’s own pages in German, in Chromium', () => {
  let quiz: EnforcedQuiz;
  let browser: LaunchedBrowser;

  beforeAll(async () => {
    const seed = demoSeed();
    seed.users.push(GERMAN_STUDENT);
    seed.enrollments = [...(seed.enrollments ?? []), { userId: GERMAN_STUDENT.id, courseId: Number(COURSE), type: 'student' }];
    quiz = await startEnforcedQuiz({ oauthClientSecret: 'detector-german-oauth-secret', exitPassword: 'verlassen-7', seed });
    browser = await launchBrowser();
    if (SCREENSHOT_DIR) mkdirSync(SCREENSHOT_DIR, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    await quiz?.close();
  });

  it.each([
    ['a wide', undefined],
    ['a narrow', NARROW],
  ] as const)('prompts in German on a German LMS quiz page, whatever the browser’s own language (%s window)', async (name, viewport) => {
    const tab = await openLmsTab(browser, quiz, {
      lmsUser: GERMAN_STUDENT.persona,
      context: { locale: 'en-US', ...(viewport === undefined ? {} : { viewport }) },
    });
    const { page } = tab;
    await takeQuiz(page, quiz.lmsUrl, QUIZ);
    const panel = page.locator(PANEL);
    await panel.waitFor({ timeout: 15_000 });
    await settled(page);

    expect(await page.locator('html').getAttribute('lang')).toBe('de');
    expect(await panel.getByRole('heading', { level: 2 }).textContent()).toBe('Sicherer Exam-Browser erforderlich');
    expect(await panel.textContent()).toContain('Dieses Quiz kann nur im sicheren Exam-Browser bearbeitet werden.');
    const setup = panel.getByRole('link', { name: 'Konfiguration für den Exam-Browser herunterladen' });
    expect(await setup.getAttribute('href')).toBe(
      `${quiz.serviceUrl}/exb/quiz/${COURSE}/${CONTENT_ID}?lms_url=${encodeURIComponent(`${quiz.lmsUrl}/courses/${COURSE}/quizzes/${QUIZ}`)}`,
    );
    const box = await panel.boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(page.viewportSize()!.width);
    expect(await page.locator('#quiz_access_code').inputValue()).toBe('');
    await screenshot(page, `detector-required-de-${name.replace(' ', '-')}`);
    expect(tab.problems).toEqual([]);
    await tab.close();
  });

  it.each([
    ['a wide', undefined],
    ['a narrow', NARROW],
  ] as const)('says so in German on the quiz page before "Take the Quiz" as well (%s window)', async (name, viewport) => {
    const tab = await openLmsTab(browser, quiz, { lmsUser: GERMAN_STUDENT.persona, ...(viewport === undefined ? {} : { context: { viewport } }) });
    const { page } = tab;
    await page.goto(`${quiz.lmsUrl}/courses/${COURSE}/quizzes/${QUIZ}`);
    const panel = page.locator(PANEL);
    await panel.waitFor({ timeout: 15_000 });
    await settled(page);

    expect(await panel.getByRole('heading', { level: 2 }).textContent()).toBe('Sicherer Exam-Browser erforderlich');
    const setup = panel.getByRole('link', { name: 'Konfiguration für den Exam-Browser herunterladen' });
    expect(await setup.getAttribute('href')).toBe(
      `${quiz.serviceUrl}/exb/quiz/${COURSE}/${CONTENT_ID}?lms_url=${encodeURIComponent(`${quiz.lmsUrl}/courses/${COURSE}/quizzes/${QUIZ}`)}`,
    );
    expect(await page.locator('#take_quiz_link').isVisible()).toBe(true);
    const box = await panel.boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(page.viewportSize()!.width);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, `quiz-page-required-de-${name.replace(' ', '-')}`);
    expect(tab.problems).toEqual([]);
    await tab.close();
  });

  it('keeps English on an English LMS page, even in a German browser', async () => {
    const tab = await openLmsTab(browser, quiz, { lmsUser: 'student1', context: { locale: 'de-DE' } });
    await takeQuiz(tab.page, quiz.lmsUrl, QUIZ);
    const panel = tab.page.locator(PANEL);
    await panel.waitFor({ timeout: 15_000 });
    expect(await panel.getByRole('heading', { level: 2 }).textContent()).toBe('Secure exam browser required');
    expect(tab.problems).toEqual([]);
    await tab.close();
  });

  it.each([
    ['manual', `/exb/exit/${COURSE}/${CONTENT_ID}`, 'Den Exam-Browser verlassen'],
    ['refused', `/exb/exit/session/${COURSE}/${CONTENT_ID}`, 'Dieser Link zum Beenden ist nicht gültig'],
  ])('renders the %s exit page in German with no serious accessibility violations, wide and narrow', async (name, url, heading) => {
    for (const viewport of [undefined, NARROW]) {
      const context = await browser.browser.newContext({ locale: 'de-DE', ...(viewport === undefined ? {} : { viewport }) });
      try {
        const page = await context.newPage();
        await page.goto(`${quiz.serviceUrl}${url}`);
        expect(await page.locator('html').getAttribute('lang')).toBe('de');
        expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(heading);
        expect(await seriousViolations(page)).toEqual([]);
        const width = await page.evaluate(() => document.documentElement.scrollWidth);
        expect(width).toBeLessThanOrEqual(page.viewportSize()!.width);
        await screenshot(page, `exit-de-${name}-${viewport === undefined ? 'wide' : 'narrow'}`);
      } finally {
        await context.close();
      }
    }
  });
});
