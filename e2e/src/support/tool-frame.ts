import type { Frame, Page } from 'playwright-core';
import { LTI_LOGIN_ROUTE } from '@exb/shared/service-paths.js';

/** How long a page of the service or the LMS may take to appear in a test before it counts as missing. */
export const PAGE_TIMEOUT_MS = 15_000;
/**
 * How long a course the administrator dashboard's catch-up connects may take to be listed: the dashboard asks every
 * 3 seconds until the backfill has run, which on a busy machine takes more than one page's wait.
 */
export const CATCH_UP_TIMEOUT_MS = 60_000;

/** The data a page of the service carries in `<script id="exb-bootstrap">`. */
export async function bootstrapOf(target: Page | Frame): Promise<Record<string, unknown>> {
  await target.locator('#exb-bootstrap').waitFor({ state: 'attached', timeout: PAGE_TIMEOUT_MS });
  return JSON.parse((await target.locator('#exb-bootstrap').textContent()) ?? 'null') as Record<string, unknown>;
}

/** Waits until `target` shows a page of the service whose bootstrap names `view`, and returns that bootstrap. */
export async function waitForView(target: Page | Frame, view: string): Promise<Record<string, unknown>> {
  const deadline = Date.now() + PAGE_TIMEOUT_MS;
  let last: unknown;
  while (Date.now() < deadline) {
    // A navigation in progress detaches the element; the next round reads the new page.
    const data = await bootstrapOf(target).catch(() => null);
    if (data?.view === view) return data;
    last = data?.view;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`expected the "${view}" page, found ${JSON.stringify(last)} at ${target.url()}`);
}

/**
 * Opens the development LMS's launch page in `page` and clicks one of its launch buttons, as a person would. Returns
 * the LMS's tool frame once it shows a page of the service (`serviceUrl`); with the launch page's `display=window`,
 * the tool takes the whole window and that is the page's main frame.
 */
export async function launchIntoToolFrame(page: Page, launchPageUrl: string, button: string, serviceUrl: string): Promise<Frame> {
  await page.goto(launchPageUrl);
  await page.getByRole('button', { name: button, exact: true }).click();
  const deadline = Date.now() + PAGE_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const frame = page.frame({ name: 'tool_content' }) ?? page.mainFrame();
    if (frame.url().startsWith(`${serviceUrl}/`) && !(await onPlatformStoragePage(frame))) return frame;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the tool frame did not open a page of ${serviceUrl}`);
}

/**
 * Whether the frame shows one of the login's platform-storage pages (`server/src/pages/platform-storage-pages.ts`),
 * which go on by themselves within a moment: the launch has not arrived yet. A frame in the middle of a navigation
 * counts as such a page too.
 */
async function onPlatformStoragePage(frame: Frame): Promise<boolean> {
  if (new URL(frame.url()).pathname === LTI_LOGIN_ROUTE.path) return true;
  try {
    return (await frame.locator('#exb-platform-storage').count()) > 0;
  } catch {
    return true;
  }
}

/**
 * Approves an authorization on the development LMS's approval page in `popup` (opened by the tool at its
 * authorization start) and waits until the LMS has sent the popup back to the service.
 */
export async function approveLmsAuthorization(popup: Page, lmsUrl: string, serviceUrl: string): Promise<void> {
  await popup.waitForURL((url) => url.href.startsWith(`${lmsUrl}/login/oauth2/auth`), { timeout: PAGE_TIMEOUT_MS });
  await popup.locator('#oauth2_accept').click();
  await popup.waitForURL((url) => url.href.startsWith(`${serviceUrl}/`), { timeout: PAGE_TIMEOUT_MS });
}

/**
 * Collects what must not happen on the service's pages in `page` (and its frames): script errors, console errors
 * (content security policy violations are reported there) and error responses of the service other than the ones a
 * test provokes on purpose (`expectedError`). A browser logs every error response to the console as well; those lines
 * are judged by the response, not twice.
 */
export function watchServiceProblems(
  page: Page,
  serviceUrl: string,
  problems: string[],
  expectedError: (url: string, status: number) => boolean = () => false,
): void {
  page.on('console', (message) => {
    if (message.type() !== 'error' || !message.location().url.startsWith(serviceUrl)) return;
    if (/^Failed to load resource: the server responded with a status of \d+/.test(message.text())) return;
    problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('response', (response) => {
    const status = response.status();
    if (status >= 400 && response.url().startsWith(serviceUrl) && !expectedError(response.url(), status)) {
      problems.push(`${status} ${response.url()}`);
    }
  });
}

/** JSON from a same-origin request in the tool frame, carrying the frame's session as the tool's own pages do. */
export function callInFrame(frame: Frame, method: 'POST' | 'PUT', url: string, body: unknown = {}) {
  return frame.evaluate(
    async ({ method, url, body }) => {
      const response = await fetch(url, {
        method,
        credentials: 'same-origin',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    },
    { method, url, body },
  );
}
