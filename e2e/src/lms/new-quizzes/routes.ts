import { htmlResponse, redirectResponse } from '../errors.js';
import { safeEqual } from '../ids.js';
import { barePage, escapeHtml } from '../pages/html.js';
import { publicRoute, type RouteDef, type RouteRequest } from '../router.js';
import type { Assignment } from '../state.js';
import { NEW_QUIZZES_LOGIN_PATH, type EngineSession } from './engine.js';

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
