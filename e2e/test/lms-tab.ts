import type { BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import type { SimulatedExamBrowser } from '../src/exb-simulator/index.js';
import { SESSION_COOKIE, type MockLms } from '../src/lms/index.js';
import type { LaunchedBrowser } from '../src/support/browser.js';
import { COURSE } from './enforced-quiz.js';

export interface ServiceCall {
  method: string;
  path: string;
  status: number;
}

export interface LmsTab {
  context: BrowserContext;
  page: Page;
  /** Responses of the service to this tab, in order. */
  serviceCalls: ServiceCall[];
  /** Script errors and failed loads of the service's scripts. */
  problems: string[];
  close(): Promise<void>;
}

/** Where the tab's pages come from: the development LMS and the service it loads scripts from. */
export interface TabOrigins {
  readonly lms: MockLms;
  readonly lmsUrl: string;
  readonly serviceUrl: string;
}

/**
 * A fresh browser profile on the LMS, logged in as `lmsUser` unless it arrives through a session URL, watching the
 * service's answers and the scripts' failures. `context` sets the profile up (its language, its window size).
 */
export async function openLmsTab(
  browser: LaunchedBrowser,
  origins: TabOrigins,
  options: { examBrowser?: SimulatedExamBrowser; lmsUser?: string; context?: BrowserContextOptions } = {},
): Promise<LmsTab> {
  const { lms, lmsUrl, serviceUrl } = origins;
  const context = await browser.browser.newContext(options.context);
  if (options.examBrowser !== undefined) await context.addInitScript(options.examBrowser.initScript());
  if (options.lmsUser !== undefined) {
    const [name, value] = lms.webSessionCookie(options.lmsUser).split('=') as [string, string];
    if (name !== SESSION_COOKIE) throw new Error(`the LMS session cookie is ${name}`);
    await context.addCookies([{ name, value, url: lmsUrl }]);
  }
  const page = await context.newPage();
  const serviceCalls: ServiceCall[] = [];
  const problems: string[] = [];
  page.on('response', (response) => {
    const url = new URL(response.url());
    if (url.origin !== serviceUrl) return;
    serviceCalls.push({ method: response.request().method(), path: url.pathname, status: response.status() });
    if (response.status() >= 400 && url.pathname.startsWith('/js/')) problems.push(`${response.status()} ${url.pathname}`);
  });
  page.on('requestfailed', (request) => {
    if (new URL(request.url()).origin === serviceUrl) problems.push(`failed ${request.method()} ${request.url()}`);
  });
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => {
    // Only the scripts' own failures (a CORS refusal shows up here too); the LMS pages have no favicon.
    const text = message.text();
    if (message.type() === 'error' && !/favicon/.test(`${text} ${message.location().url}`)) problems.push(text);
  });
  return { context, page, serviceCalls, problems, close: () => context.close() };
}

/** Waits until the page's scripts have nothing in flight: negative checks are only meaningful after that. */
export async function settled(page: Page): Promise<void> {
  await page.waitForLoadState('networkidle');
}

/** The quiz page, once its scripts are done. */
export async function openQuizPage(page: Page, lmsUrl: string, quizId: string): Promise<void> {
  await page.goto(`${lmsUrl}/courses/${COURSE}/quizzes/${quizId}`);
  await settled(page);
}

/**
 * From the quiz page, the "Take the Quiz" button, which posts to the take page. The quiz page's own scripts finish
 * first, so no request of theirs is cut off by the navigation and counted as a failure.
 */
export async function takeQuiz(page: Page, lmsUrl: string, quizId: string): Promise<void> {
  if (new URL(page.url()).pathname === `/courses/${COURSE}/quizzes/${quizId}`) await settled(page);
  else await openQuizPage(page, lmsUrl, quizId);
  await Promise.all([
    page.waitForURL(new RegExp(`/courses/${COURSE}/quizzes/${quizId}/take`), { timeout: 15_000 }),
    page.locator('#take_quiz_link').click(),
  ]);
}
