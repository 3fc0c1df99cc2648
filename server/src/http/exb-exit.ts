import type { FastifyInstance, FastifyReply } from 'fastify';
import { isBase64UrlToken } from '@exb/shared/base64url-token.js';
import type { AppContext } from '../context.js';
import { lmsCourseUrl } from '../lms/pages.js';
import { assessmentParams, exbPage } from './exb-student-http.js';
import { htmlSecurityHeaders } from '../pages/shell.js';

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

  const page = (reply: FastifyReply, status: number, html: string) =>
    reply.code(status).headers(headers).type('text/html; charset=utf-8').send(html);

  const refused = (reply: FastifyReply, courseId: string | null) =>
    page(
      reply,
      403,
      exbPage({
        title: 'This exit link is not valid',
        paragraphs: [
          'The exit link is missing, has expired, or the quiz no longer requires the exam browser.',
          'If you have submitted the quiz, close the exam browser with its quit button and the exit password your instructor gives you.',
        ],
        ...(courseId === null ? {} : { links: [{ href: lmsHome(courseId), text: 'Back to the course' }] }),
        bootstrap: { view: 'exb-exit-refused' },
      }),
    );

  // Malformed ids name nothing: the answer of any unknown address.
  const notFound = (reply: FastifyReply) => reply.callNotFound();

  app.get<GrantRoute>('/exb/exit/session/:courseId/:quizId/:grant', async (request, reply) => {
    const params = assessmentParams(request.params.courseId, request.params.quizId);
    if (params === null) return notFound(reply);
    const { grant } = request.params;
    if (!isBase64UrlToken(grant) || !(await exits.checkGrant(params.courseId, params.contentId, grant)).ok) {
      return refused(reply, params.courseId);
    }
    const quitPath = `/exb/exit/quit/${params.courseId}/${params.contentId}/${grant}`;
    return page(
      reply,
      200,
      exbPage({
        title: 'Your quiz is submitted',
        paragraphs: ['You can now leave the exam browser. It closes when you continue.'],
        links: [{ href: quitPath, text: 'Leave the exam browser' }],
        bootstrap: { view: 'exb-exit-session', courseId: params.courseId, contentId: params.contentId, quitUrl: quitPath },
      }),
    );
  });

  app.get<ExitRoute>('/exb/exit/session/:courseId/:quizId', async (request, reply) => {
    const params = assessmentParams(request.params.courseId, request.params.quizId);
    return params === null ? notFound(reply) : refused(reply, params.courseId);
  });

  app.get<GrantRoute>('/exb/exit/quit/:courseId/:quizId/:grant', async (request, reply) => {
    const params = assessmentParams(request.params.courseId, request.params.quizId);
    if (params === null) return notFound(reply);
    const { grant } = request.params;
    const exit = isBase64UrlToken(grant) ? await exits.checkGrant(params.courseId, params.contentId, grant, true) : { ok: false as const };
    if (!exit.ok) return refused(reply, params.courseId);
    return reply.code(303).headers({ 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' }).redirect(exit.quitUrl, 303);
  });

  app.get<CompleteRoute>('/exb/exit/complete/:courseId/:quizId/:token', async (request, reply) => {
    const params = assessmentParams(request.params.courseId, request.params.quizId);
    if (params === null) return notFound(reply);
    const { token } = request.params;
    if (!isBase64UrlToken(token) || !(await exits.isCurrentQuitToken(params.courseId, params.contentId, token))) {
      return refused(reply, params.courseId);
    }
    return page(
      reply.headers({ 'x-exb-quit': 'true', 'x-exb-exit': 'submitted' }),
      200,
      exbPage({
        title: 'Quiz finished',
        paragraphs: ['The exam browser closes now.', 'If it stays open, close it with its own quit button.'],
        links: [{ href: lmsHome(params.courseId), text: 'Back to the course' }],
        bootstrap: { view: 'exb-exit-complete', courseId: params.courseId, contentId: params.contentId },
      }),
    );
  });

  app.get<ExitRoute>('/exb/exit/complete/:courseId/:quizId', async (request, reply) => {
    const params = assessmentParams(request.params.courseId, request.params.quizId);
    return params === null ? notFound(reply) : refused(reply, params.courseId);
  });

  app.get<ExitRoute>('/exb/exit/:courseId/:quizId', async (request, reply) => {
    const params = assessmentParams(request.params.courseId, request.params.quizId);
    if (params === null) return notFound(reply);
    return page(
      reply,
      200,
      exbPage({
        title: 'Leaving the exam browser',
        paragraphs: [
          'This page does not close the exam browser and does not submit your quiz.',
          'Submit the quiz in the LMS first; the page shown afterwards lets you leave. To leave before that, ask your instructor for the exit password and use the exam browser’s quit button.',
        ],
        bootstrap: { view: 'exb-exit-manual', courseId: params.courseId, contentId: params.contentId },
      }),
    );
  });

  const gone = async (_request: unknown, reply: FastifyReply) =>
    page(
      reply,
      410,
      exbPage({
        title: 'This exit link is no longer available',
        paragraphs: ['Use the exit link shown after you submit the quiz, or the exam browser’s quit button with the exit password.'],
        bootstrap: { view: 'exb-exit-gone' },
      }),
    );
  app.get('/exb/exit/quit/:courseId/:quizId', gone);
  app.get('/exb/exit/manual/:courseId/:quizId', gone);
}
