import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import type { HandoffOutcome } from '../domain/exam-browser/config-grants.js';
import { lmsCourseUrl } from '../lms/pages.js';
import { exbPage, sensitiveResponse } from './exb-student-http.js';
import { launchHandoffPage } from './launch-handoff-page.js';
import { htmlSecurityHeaders } from '../pages/shell.js';

export const LAUNCH_HANDOFF_PATH = '/exb/launch-handoff';

type HandoffRoute = { Querystring: { key?: unknown } };

/** The handoff page for each outcome of its key, with its status. */
function handoffPage(
  handoff: HandoffOutcome,
  lmsUrl: string,
  testbedExamBrowserUrl: string | undefined,
): { status: number; html: string } {
  if (handoff.kind === 'unknown') {
    const html = exbPage({
      title: 'This link is not valid',
      paragraphs: ['Open the quiz from your course in the LMS and download the configuration again.'],
      links: [{ href: lmsUrl, text: 'Go to the LMS', top: true }],
      bootstrap: { view: 'exb-launch-handoff', available: false },
    });
    return { status: 404, html };
  }
  const returnUrl = lmsCourseUrl(lmsUrl, handoff.courseId);
  if (handoff.kind === 'used') {
    const html = exbPage({
      title: 'The exam browser was already started',
      paragraphs: ['This link opens the exam browser only once. To start again, download a new configuration from the quiz.'],
      links: [{ href: returnUrl, text: 'Back to the course', top: true }],
      bootstrap: { view: 'exb-launch-handoff', available: false, lmsReturnUrl: returnUrl },
    });
    return { status: 200, html };
  }
  const { exbLaunchUrl, purpose } = handoff;
  const html = launchHandoffPage({ exbLaunchUrl, purpose, returnUrl, testbedExamBrowserUrl });
  return { status: 200, html };
}

/** Document 3: the launch handoff page, which opens the exam browser once with a freshly granted configuration. */
export async function registerExbHandoffRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const { config, examBrowser } = ctx;
  const htmlHeaders = htmlSecurityHeaders(config.lmsUrl);
  app.get<HandoffRoute>(LAUNCH_HANDOFF_PATH, { onRequest: sensitiveResponse }, async (request, reply) => {
    const { status, html } = handoffPage(await examBrowser.grants.openHandoff(request.query.key), config.lmsUrl, config.testbedExamBrowserUrl);
    return reply.code(status).headers(htmlHeaders).type('text/html; charset=utf-8').send(html);
  });
}
