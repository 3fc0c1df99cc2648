import type { LmsRuntime } from '../context.js';
import { htmlResponse, redirectResponse } from '../errors.js';
import { hmac, randomToken, safeEqual } from '../ids.js';
import { barePage, escapeHtml } from '../pages/html.js';
import { publicRoute, type RouteDef, type RouteRequest } from '../router.js';
import type { Assignment } from '../state.js';

/**
 * The New Quizzes engine: a tool of its own, served from its own origin, which the LMS launches into the assignment
 * page's tool frame. As in Canvas:
 * - `AssignmentsController#show` sends an external-tool assignment (a new quiz is one, `quiz_lti?`) through
 *   `ApplicationController#content_tag_redirect`, which renders the tool launch on the assignment page
 *   (`app/controllers/assignments_controller.rb`, `app/controllers/application_controller.rb`);
 * - the launch is a form the page posts into the `tool_content` iframe (`app/views/lti/_lti_message.html.erb`), to the
 *   New Quizzes tool's host (`*.quiz-lti-<region>-prod.instructure.com`, `lib/api/v1/assignment.rb`'s
 *   `external_tool_tag_attributes.url`), another site than the LMS;
 * - the engine itself asks for the quiz's `student_access_code` inside that frame, where the LMS page's scripts (the
 *   account's theme JavaScript among them) cannot reach.
 *
 * The stand-in shortens the LTI 1.3 exchange: the LMS signs a one-time launch hint (five minutes, like Canvas's
 * `lti_message_hint`) naming user, course and assignment, and the engine, living in the same process, checks it with
 * the LMS's secret instead of running the OIDC round trip. Everything after the launch is kept in the engine's
 * session, named in its own URLs, so no cookie has to cross sites.
 */

/** Canvas's `MESSAGE_HINT_LIFESPAN`. */
export const NEW_QUIZZES_LAUNCH_LIFETIME_MS = 5 * 60 * 1000;
export const NEW_QUIZZES_LOGIN_PATH = '/lti/login';

interface LaunchHint {
  userId: number;
  courseId: number;
  assignmentId: number;
  expiresAt: number;
  nonce: string;
}

interface EngineSession {
  userId: number;
  courseId: number;
  assignmentId: number;
  /** The access code this session entered; the quiz opens while it equals the quiz's current code. */
  enteredCode: string | null;
  submitted: boolean;
}

/** Sessions kept at most; the oldest go first. */
const MAX_SESSIONS = 500;

export class NewQuizzesEngine {
  /** The engine's origin once its server runs (`startNewQuizzesServer`); `null` before. */
  url: string | null = null;
  private readonly usedNonces = new Set<string>();
  private readonly sessions = new Map<string, EngineSession>();

  constructor(private readonly lms: LmsRuntime) {}

  /** The hint the assignment page posts into the frame, for `userId` to take `assignment`. */
  launchHint(userId: number, assignment: Assignment): string {
    const hint: LaunchHint = {
      userId,
      courseId: assignment.courseId,
      assignmentId: assignment.id,
      expiresAt: this.lms.clock.now() + NEW_QUIZZES_LAUNCH_LIFETIME_MS,
      nonce: randomToken(12),
    };
    const payload = Buffer.from(JSON.stringify(hint)).toString('base64url');
    return `${payload}.${hmac(this.lms.secret, `new-quizzes-launch:${payload}`)}`;
  }

  /** Opens an engine session for a valid, unused hint; `undefined` for anything else. */
  launch(hint: string): string | undefined {
    const [payload, signature] = hint.split('.');
    if (!payload || !signature || !safeEqual(signature, hmac(this.lms.secret, `new-quizzes-launch:${payload}`))) return undefined;
    let data: LaunchHint;
    try {
      data = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as LaunchHint;
    } catch {
      return undefined;
    }
    if (data.expiresAt < this.lms.clock.now() || this.usedNonces.has(data.nonce)) return undefined;
    this.usedNonces.add(data.nonce);
    const id = randomToken(18);
    this.sessions.set(id, { userId: data.userId, courseId: data.courseId, assignmentId: data.assignmentId, enteredCode: null, submitted: false });
    for (const old of this.sessions.keys()) {
      if (this.sessions.size <= MAX_SESSIONS) break;
      this.sessions.delete(old);
    }
    return id;
  }

  session(id: string): EngineSession | undefined {
    return this.sessions.get(id);
  }

  clear(): void {
    this.sessions.clear();
    this.usedNonces.clear();
  }
}

function enginePage(title: string, body: string, status = 200): Response {
  return htmlResponse(barePage(title, body), status, { 'cache-control': 'no-store' });
}

function endedPage(): Response {
  return enginePage('Quiz unavailable', '<h1>This quiz session has ended</h1><p>Open the quiz again from the course.</p>', 404);
}

/** The quiz of a live session, or `undefined` when the session or its quiz is gone. */
function sessionQuiz(req: RouteRequest): { id: string; session: EngineSession; assignment: Assignment } | undefined {
  const id = req.params.session_id ?? '';
  const session = req.lms.newQuizzes.session(id);
  const assignment = session ? req.lms.state.assignments.get(session.assignmentId) : undefined;
  if (!session || !assignment?.newQuiz || assignment.deleted) return undefined;
  return { id, session, assignment };
}

/** The code the quiz asks for, or `null` when it asks for none. */
function requiredCode(assignment: Assignment): string | null {
  const settings = assignment.newQuiz?.quizSettings;
  return settings?.require_student_access_code && settings.student_access_code ? settings.student_access_code : null;
}

function accessCodePrompt(id: string, assignment: Assignment, wrong: boolean): Response {
  return enginePage(
    assignment.name,
    `<h1>${escapeHtml(assignment.name)}</h1>
<form id="new_quiz_access_code" method="post" action="/sessions/${escapeHtml(id)}/access-code">
<p>This quiz requires an access code.</p>${wrong ? '\n<p role="alert" id="new_quiz_access_code_error">The access code is not correct.</p>' : ''}
<p><label for="new_quiz_access_code_input">Access code</label>
<input id="new_quiz_access_code_input" type="password" name="access_code" autocomplete="off" required></p>
<button class="btn btn-primary" type="submit">Begin</button>
</form>`,
  );
}

function quizPage(id: string, assignment: Assignment, submitted: boolean): Response {
  if (submitted) {
    return enginePage(assignment.name, `<h1>${escapeHtml(assignment.name)}</h1><p id="new_quiz_submitted">Your quiz has been submitted.</p>`);
  }
  return enginePage(
    assignment.name,
    `<h1>${escapeHtml(assignment.name)}</h1>
<form id="new_quiz_questions" method="post" action="/sessions/${escapeHtml(id)}/submit">
<div class="question"><p id="new_quiz_question_1">Question 1: explain your answer.</p>
<textarea name="answer_1" aria-labelledby="new_quiz_question_1"></textarea></div>
<button class="btn btn-primary" type="submit">Submit</button>
</form>`,
  );
}

/** The engine's own pages, served only on its origin (`startNewQuizzesServer`). */
export function newQuizzesEngineRoutes(): RouteDef[] {
  return [
    // The launch the assignment page posts into its tool frame.
    publicRoute('POST', NEW_QUIZZES_LOGIN_PATH, (req) => {
      const hint = typeof req.body.lti_message_hint === 'string' ? req.body.lti_message_hint : '';
      const id = req.lms.newQuizzes.launch(hint);
      if (id === undefined) {
        return enginePage('Launch failed', '<h1>The quiz could not be launched</h1><p>Open the quiz again from the course.</p>', 401);
      }
      return redirectResponse(`/sessions/${id}`, 303);
    }),
    publicRoute('GET', '/sessions/:session_id', (req) => {
      const found = sessionQuiz(req);
      if (!found) return endedPage();
      const code = requiredCode(found.assignment);
      // A code changed since it was entered asks again, as the classic quiz does on its take pages.
      if (code !== null && found.session.enteredCode !== code && !found.session.submitted) {
        return accessCodePrompt(found.id, found.assignment, false);
      }
      return quizPage(found.id, found.assignment, found.session.submitted);
    }),
    publicRoute('POST', '/sessions/:session_id/access-code', (req) => {
      const found = sessionQuiz(req);
      if (!found) return endedPage();
      const code = requiredCode(found.assignment);
      const entered = typeof req.body.access_code === 'string' ? req.body.access_code : '';
      if (code !== null && !safeEqual(entered, code)) return accessCodePrompt(found.id, found.assignment, true);
      found.session.enteredCode = code;
      return redirectResponse(`/sessions/${found.id}`, 303);
    }),
    publicRoute('POST', '/sessions/:session_id/submit', (req) => {
      const found = sessionQuiz(req);
      if (!found) return endedPage();
      const code = requiredCode(found.assignment);
      if (code !== null && found.session.enteredCode !== code) return accessCodePrompt(found.id, found.assignment, false);
      found.session.submitted = true;
      // The engine turns the attempt in as the assignment's submission, which the submissions API then shows.
      req.lms.state.submitAssignment(found.assignment.id, found.session.userId, req.lms.clock.date().toISOString());
      return redirectResponse(`/sessions/${found.id}`, 303);
    }),
  ];
}
