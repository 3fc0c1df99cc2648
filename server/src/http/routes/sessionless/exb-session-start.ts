import { ErrorCodes, errorStatus, PAGE_REFUSAL_STATUS } from '@exb/shared/error-codes.js';
import type { FastifyInstance } from 'fastify';
import type { Locale } from '@exb/shared/i18n/locale.js';
import type { AppContext } from '../../../context.js';
import { SESSION_START_ROUTE } from '@exb/shared/service-paths.js';
import type { SessionStartOutcome } from '../../../domain/exam-browser/config-grants.js';
import { translator } from '../../../i18n/translator.js';
import { lmsAssessmentUrl, lmsCourseUrl } from '../../../lms/pages.js';
import { htmlSecurityHeaders } from '../../../pages/shell.js';
import { requestLocale } from '../../../security/session.js';
import { clientSignal } from '../../kit/client-signal.js';
import { exbPage } from '../../../pages/exb-page.js';
import { assessmentParams, sensitiveResponse } from '../../kit/student-access.js';

type StartRoute = { Params: { courseId: string; contentId: string }; Querystring: { key?: unknown } };
type StartRefusal = Exclude<SessionStartOutcome, { ok: true }>['reason'];

type RefusalKey = 'unknown' | 'foreign' | 'used' | 'expired' | 'authorizationRequired' | 'lmsUnavailable';

/** Status and catalogue key of each refusal's page; the key names the page's title and message. */
const REFUSALS: Record<StartRefusal, { status: number; key: RefusalKey }> = {
  unknown: { status: errorStatus(ErrorCodes.NOT_FOUND), key: 'unknown' },
  foreign: { status: errorStatus(ErrorCodes.NOT_FOUND), key: 'foreign' },
  used: { status: PAGE_REFUSAL_STATUS.sessionKeySpent, key: 'used' },
  expired: { status: PAGE_REFUSAL_STATUS.sessionKeySpent, key: 'expired' },
  'lms-session-authorization-required': { status: errorStatus(ErrorCodes.LMS_SESSION_AUTHORIZATION_REQUIRED), key: 'authorizationRequired' },
  'lms-session-unavailable': { status: errorStatus(ErrorCodes.LMS_UNAVAILABLE), key: 'lmsUnavailable' },
};

function refusalPage(reason: StartRefusal, backUrl: string, locale: Locale): string {
  const t = translator(locale);
  const { key } = REFUSALS[reason];
  return exbPage({
    locale,
    title: t(`launch:sessionStart.${key}Title` as const),
    paragraphs: [t(`launch:sessionStart.${key}Message` as const)],
    links: [{ href: backUrl, text: t('launch:sessionStart.backToQuiz'), top: true }],
    bootstrap: { view: 'exb-session-start', available: false, reason },
  });
}

/**
 * The configuration's start URL (`config-grants.ts`): the exam browser's first page. It carries no cookies; the one-time
 * key is its authorization. A `GET` is answered with a redirect to a session URL the LMS minted just now, so the 30
 * seconds the LMS gives a session token start when the exam browser is ready, not at the download. There is no `HEAD`:
 * answering one would have to take the start or lie about it.
 */
export async function registerExbSessionStartRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const { config, examBrowser } = ctx;
  const htmlHeaders = htmlSecurityHeaders(config.lmsUrl);
  app.get<StartRoute>(SESSION_START_ROUTE.path, { onRequest: sensitiveResponse, exposeHeadRoute: false }, async (request, reply) => {
    // The session URL signs its holder in: it must not leak through a Referer or a cache.
    reply.headers({ 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
    const params = assessmentParams(request.params.courseId, request.params.contentId);
    const locale = requestLocale(request);
    if (params === null) {
      return reply.code(errorStatus(ErrorCodes.NOT_FOUND)).headers(htmlHeaders).type('text/html; charset=utf-8').send(refusalPage('unknown', config.lmsUrl, locale));
    }
    const outcome = await examBrowser.grants.startSession(params.courseId, params.contentId, request.query.key, clientSignal(reply));
    if (outcome.ok) return reply.redirect(outcome.sessionUrl, 302);
    request.log.info({ reason: outcome.reason }, 'session start refused');
    // A start of another quiz leads back to the course; the others to the quiz this URL was made for.
    const backUrl =
      outcome.reason === 'foreign' || outcome.reason === 'unknown'
        ? lmsCourseUrl(config.lmsUrl, params.courseId)
        : lmsAssessmentUrl(config.lmsUrl, params.courseId, params.content);
    return reply
      .code(REFUSALS[outcome.reason].status)
      .headers(htmlHeaders)
      .type('text/html; charset=utf-8')
      .send(refusalPage(outcome.reason, backUrl, locale));
  });
}
