import type { FastifyInstance } from 'fastify';
import { TESTBED_QUIT_NOTICE_ROUTE } from '@exb/shared/service-paths.js';
import type { AppConfig } from '../config/app-config.js';
import { escapeHtml } from './shell.js';

/** The origin of the development LMS whose window frames the simulated exam browser's pages; none when it is off. */
function simulatorOrigin(config: Pick<AppConfig, 'testbedExamBrowserUrl'>): string | undefined {
  return config.testbedExamBrowserUrl === undefined ? undefined : new URL(config.testbedExamBrowserUrl).origin;
}

/**
 * Head markup for a page that is a configuration's quit URL. A real exam browser never shows that page: it cancels
 * the navigation to the quit URL and quits (Safe Exam Browser for Windows, `SafeExamBrowser.Browser/Handlers/
 * RequestHandler.cs`, `OnBeforeBrowse` with `IsQuitUrl`). The testbed's simulated exam browser frames the service's
 * pages from the development LMS's origin, whose window cannot read a cross-origin frame's address; so, with the
 * testbed on, the page tells that window its address, and the window decides as the exam browser would. Empty otherwise.
 */
export function testbedQuitNoticeHead(config: Pick<AppConfig, 'testbedExamBrowserUrl'>): string {
  return simulatorOrigin(config) === undefined ? '' : `<script src="${escapeHtml(TESTBED_QUIT_NOTICE_ROUTE.path)}" defer></script>`;
}

/** Serves the quit URL page's notice to the simulated exam browser's window, only to that window's origin. */
export async function registerTestbedQuitNotice(app: FastifyInstance, config: Pick<AppConfig, 'testbedExamBrowserUrl'>): Promise<void> {
  const origin = simulatorOrigin(config);
  if (origin === undefined) return;
  const script =
    '(function () {\n' +
    '  if (window.parent === window) return;\n' +
    `  window.parent.postMessage({ type: 'exb-quit-url-reached', url: location.href }, ${JSON.stringify(origin)});\n` +
    '})();\n';
  app.get(TESTBED_QUIT_NOTICE_ROUTE.path, async (_request, reply) =>
    reply.headers({ 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' }).type('text/javascript; charset=utf-8').send(script),
  );
}
