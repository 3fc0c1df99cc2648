import { ErrorCodes, errorStatus } from '@exb/shared/error-codes.js';
import type { FastifyInstance } from 'fastify';
import { LAUNCH_HANDOFF_ROUTE } from '@exb/shared/service-paths.js';
import type { Locale } from '@exb/shared/i18n/locale.js';
import type { AppContext } from '../../../context.js';
import type { HandoffOutcome } from '../../../domain/exam-browser/config-grants.js';
import { translator } from '../../../i18n/translator.js';
import { lmsCourseUrl } from '../../../lms/pages.js';
import { requestLocale } from '../../../security/session.js';
import { exbPage } from '../../../pages/exb-page.js';
import { sensitiveResponse } from '../../kit/student-access.js';
import { launchHandoffPage } from '../../../pages/launch-handoff-page.js';
import { htmlSecurityHeaders } from '../../../pages/shell.js';
import { clientSignal } from '../../kit/client-signal.js';

type HandoffRoute = { Querystring: { key?: unknown } };

/** The handoff page for each outcome of its key, with its status, in `locale`. */
function handoffPage(
  handoff: HandoffOutcome,
  lmsUrl: string,
  testbedExamBrowserUrl: string | undefined,
  locale: Locale,
): { status: number; html: string } {
  const t = translator(locale);
  if (handoff.kind === 'unknown') {
    const html = exbPage({
      locale,
      title: t('launch:handoff.invalidTitle'),
      paragraphs: [t('launch:handoff.invalidMessage')],
      links: [{ href: lmsUrl, text: t('launch:handoff.goToLms'), top: true }],
      bootstrap: { view: 'exb-launch-handoff', available: false },
    });
    return { status: errorStatus(ErrorCodes.NOT_FOUND), html };
  }
  const returnUrl = lmsCourseUrl(lmsUrl, handoff.courseId);
  if (handoff.kind === 'used') {
    const html = exbPage({
      locale,
      title: t('launch:handoff.usedTitle'),
      paragraphs: [t('launch:handoff.usedMessage')],
      links: [{ href: returnUrl, text: t('launch:handoff.backToCourse'), top: true }],
      bootstrap: { view: 'exb-launch-handoff', available: false, lmsReturnUrl: returnUrl },
    });
    return { status: 200, html };
  }
  const { exbLaunchUrl, purpose } = handoff;
  const html = launchHandoffPage({ exbLaunchUrl, purpose, returnUrl, testbedExamBrowserUrl, locale });
  return { status: 200, html };
}

/** Document 3: the launch handoff page, which opens the exam browser once with a freshly granted configuration. */
export async function registerExbHandoffRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const { config, examBrowser } = ctx;
  const htmlHeaders = htmlSecurityHeaders(config.lmsUrl);
  app.get<HandoffRoute>(LAUNCH_HANDOFF_ROUTE.path, { onRequest: sensitiveResponse }, async (request, reply) => {
    const handoff = await examBrowser.grants.openHandoff(request.query.key, clientSignal(reply));
    const { status, html } = handoffPage(handoff, config.lmsUrl, config.testbedExamBrowserUrl, requestLocale(request));
    return reply.code(status).headers(htmlHeaders).type('text/html; charset=utf-8').send(html);
  });
}
