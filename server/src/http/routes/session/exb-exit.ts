import { PAGE_REFUSAL_STATUS } from '@exb/shared/error-codes.js';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { isBase64UrlToken } from '@exb/shared/base64url-token.js';
import { EXIT_COMPLETE_ROUTE, EXIT_QUIT_ROUTE, EXIT_SESSION_ROUTE, servicePath } from '@exb/shared/service-paths.js';
import type { AppContext } from '../../../context.js';
import { translator, type Translate } from '../../../i18n/translator.js';
import { lmsCourseUrl } from '../../../lms/pages.js';
import { requestLocale } from '../../../security/session.js';
import { exbPage } from '../../../pages/exb-page.js';
import { assessmentParams } from '../../kit/student-access.js';
import { htmlSecurityHeaders } from '../../../pages/shell.js';
import { registerTestbedQuitNotice, testbedQuitNoticeHead } from '../../../pages/testbed-quit-notice.js';

type ExitRoute = { Params: { courseId: string; quizId: string } };
type GrantRoute = { Params: { courseId: string; quizId: string; grant: string } };
type CompleteRoute = { Params: { courseId: string; quizId: string; token: string } };

/**
 * Leaving the exam browser (Document 3, "Exit"). Exit grants and quit tokens travel in the path, so every page is
 * `no-store` and sends no referrer. Only the completion page, reached through the configuration's quit URL, tells the
 * exam browser to quit (`x-exb-quit`); the manual page never does, and the unbound quit paths are gone for good.
 */
export async function registerExbExitRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const { config, examBrowser } = ctx;
  const { exits } = examBrowser;
  const headers = htmlSecurityHeaders(config.lmsUrl);
  const lmsHome = (courseId: string) => lmsCourseUrl(config.lmsUrl, courseId);
  await registerTestbedQuitNotice(app, config);

  /** An exit page in the request's language: `content` words it with `t`. */
  const page = (reply: FastifyReply, status: number, content: (t: Translate) => Omit<Parameters<typeof exbPage>[0], 'locale'>) => {
    const locale = requestLocale(reply.request);
    const html = exbPage({ ...content(translator(locale)), locale });
    return reply.code(status).headers(headers).type('text/html; charset=utf-8').send(html);
  };

  const refused = (reply: FastifyReply, courseId: string | null) =>
    page(reply, PAGE_REFUSAL_STATUS.exitGrantInvalid, (t) => ({
      title: t('launch:exit.refusedTitle'),
      paragraphs: [t('launch:exit.refusedCause'), t('launch:exit.refusedHelp')],
      ...(courseId === null ? {} : { links: [{ href: lmsHome(courseId), text: t('launch:exit.backToCourse') }] }),
      bootstrap: { view: 'exb-exit-refused' },
    }));

  // Malformed ids name nothing: the answer of any unknown address.
  const notFound = (reply: FastifyReply) => reply.callNotFound();

  app.get<GrantRoute>(EXIT_SESSION_ROUTE.path, async (request, reply) => {
    const params = assessmentParams(request.params.courseId, request.params.quizId);
    if (params === null) return notFound(reply);
    const { grant } = request.params;
    if (!isBase64UrlToken(grant) || !(await exits.checkGrant(params.courseId, params.contentId, grant)).ok) {
      return refused(reply, params.courseId);
    }
    const quitPath = servicePath(EXIT_QUIT_ROUTE, [params.courseId, params.contentId, grant]);
    return page(reply, 200, (t) => ({
      title: t('launch:exit.submittedTitle'),
      paragraphs: [t('launch:exit.submittedMessage')],
      links: [{ href: quitPath, text: t('launch:exit.leave') }],
      bootstrap: { view: 'exb-exit-session', courseId: params.courseId, contentId: params.contentId, quitUrl: quitPath },
    }));
  });

  app.get<ExitRoute>('/exb/exit/session/:courseId/:quizId', async (request, reply) => {
    const params = assessmentParams(request.params.courseId, request.params.quizId);
    return params === null ? notFound(reply) : refused(reply, params.courseId);
  });

  app.get<GrantRoute>(EXIT_QUIT_ROUTE.path, async (request, reply) => {
    const params = assessmentParams(request.params.courseId, request.params.quizId);
    if (params === null) return notFound(reply);
    const { grant } = request.params;
    const exit = isBase64UrlToken(grant) ? await exits.checkGrant(params.courseId, params.contentId, grant, true) : { ok: false as const };
    if (!exit.ok) return refused(reply, params.courseId);
    return reply.code(303).headers({ 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' }).redirect(exit.quitUrl, 303);
  });

  app.get<CompleteRoute>(EXIT_COMPLETE_ROUTE.path, async (request, reply) => {
    const params = assessmentParams(request.params.courseId, request.params.quizId);
    if (params === null) return notFound(reply);
    const { token } = request.params;
    if (!isBase64UrlToken(token) || !(await exits.isCurrentQuitToken(params.courseId, params.contentId, token))) {
      return refused(reply, params.courseId);
    }
    return page(reply.headers({ 'x-exb-quit': 'true', 'x-exb-exit': 'submitted' }), 200, (t) => ({
      title: t('launch:exit.finishedTitle'),
      paragraphs: [t('launch:exit.finishedCloses'), t('launch:exit.finishedStaysOpen')],
      links: [{ href: lmsHome(params.courseId), text: t('launch:exit.backToCourse') }],
      bootstrap: { view: 'exb-exit-complete', courseId: params.courseId, contentId: params.contentId },
      head: testbedQuitNoticeHead(config),
    }));
  });

  app.get<ExitRoute>('/exb/exit/complete/:courseId/:quizId', async (request, reply) => {
    const params = assessmentParams(request.params.courseId, request.params.quizId);
    return params === null ? notFound(reply) : refused(reply, params.courseId);
  });

  app.get<ExitRoute>('/exb/exit/:courseId/:quizId', async (request, reply) => {
    const params = assessmentParams(request.params.courseId, request.params.quizId);
    if (params === null) return notFound(reply);
    return page(reply, 200, (t) => ({
      title: t('launch:exit.manualTitle'),
      paragraphs: [t('launch:exit.manualNoEffect'), t('launch:exit.manualHow')],
      bootstrap: { view: 'exb-exit-manual', courseId: params.courseId, contentId: params.contentId },
    }));
  });

  const gone = async (_request: unknown, reply: FastifyReply) =>
    page(reply, PAGE_REFUSAL_STATUS.exitUnbound, (t) => ({
      title: t('launch:exit.goneTitle'),
      paragraphs: [t('launch:exit.goneMessage')],
      bootstrap: { view: 'exb-exit-gone' },
    }));
  app.get('/exb/exit/quit/:courseId/:quizId', gone);
  app.get('/exb/exit/manual/:courseId/:quizId', gone);
}
