import type { LmsRuntime } from '../runtime.js';
import { htmlResponse, redirectResponse } from '../errors.js';
import { canReadCourse, canSeeUnpublished, coursePermissions } from '../permissions.js';
import { publicRoute, type RouteDef, type RouteRequest } from '../router.js';
import type { Assignment, Course, Quiz, QuizSubmission, User, WebSession } from '../state.js';
import { checkAuthenticityToken, loggedInVisitor, notFoundPage, unauthorizedPage } from './common.js';
import { NEW_QUIZZES_LOGIN_PATH } from '../new-quizzes/engine.js';
import { applicationPage, autoPostForm, escapeHtml } from './html.js';

interface Visit {
  lms: LmsRuntime;
  req: RouteRequest;
  user: User;
  session: WebSession;
  course: Course;
}

/** Common gate of course pages: logged in, course exists, user may read it. */
function courseVisit(req: RouteRequest): Visit | Response {
  const who = loggedInVisitor(req);
  if (who instanceof Response) return who;
  const course = req.lms.state.courses.get(Number(req.params.course_id));
  if (!course || course.deleted) return notFoundPage(req.lms, who, req.url);
  if (!canReadCourse(req.lms.state, who.user.id, course.id)) return unauthorizedPage(req.lms, who, req.url);
  return { lms: req.lms, req, ...who, course };
}

function page(visit: Visit, title: string, body: string, env: Record<string, unknown> = {}, status = 200): Response {
  return htmlResponse(
    applicationPage(visit.lms, {
      title,
      url: visit.req.url,
      user: visit.user,
      session: visit.session,
      env: { COURSE_ID: String(visit.course.id), context_asset_string: `course_${visit.course.id}`, ...env },
      body,
    }),
    status,
  );
}

function visibleQuiz(visit: Visit): Quiz | undefined {
  const quiz = visit.lms.state.quizzes.get(Number(visit.req.params.quiz_id));
  if (!quiz || quiz.deleted || quiz.courseId !== visit.course.id) return undefined;
  if (!quiz.published && !canSeeUnpublished(visit.lms.state, visit.user.id, visit.course.id)) return undefined;
  return quiz;
}

function courseHome(req: RouteRequest): Response {
  const visit = courseVisit(req);
  if (visit instanceof Response) return visit;
  const { lms, course, user } = visit;
  const staff = canSeeUnpublished(lms.state, user.id, course.id);
  const quizzes = [...lms.state.quizzes.values()]
    .filter((q) => q.courseId === course.id && !q.deleted && (q.published || staff))
    .map((q) => `<li><a href="/courses/${course.id}/quizzes/${q.id}">${escapeHtml(q.title)}</a>${q.published ? '' : ' (unpublished)'}</li>`)
    .join('');
  const assignments = [...lms.state.assignments.values()]
    .filter((a) => a.courseId === course.id && !a.deleted && (a.published || staff) && a.quizId === null)
    .map((a) => `<li><a href="/courses/${course.id}/assignments/${a.id}">${escapeHtml(a.name)}</a>${a.newQuiz ? ' (New Quizzes)' : ''}${a.published ? '' : ' (unpublished)'}</li>`)
    .join('');
  const nav = lms.platform.registration.placements.get('course_navigation');
  return page(
    visit,
    course.name,
    `<h1>${escapeHtml(course.name)}</h1>
<nav id="section-tabs"><a href="/courses/${course.id}/external_tools/${lms.tool.toolId}">${escapeHtml(nav?.text ?? 'Tool')}</a></nav>
<h2>Quizzes</h2><ul id="quiz_list">${quizzes}</ul>
<h2>Assignments</h2><ul id="assignment_list">${assignments}</ul>`,
  );
}

function quizShow(req: RouteRequest): Response {
  const visit = courseVisit(req);
  if (visit instanceof Response) return visit;
  const quiz = visibleQuiz(visit);
  if (!quiz) return notFoundPage(visit.lms, visit, req.url);
  const rights = coursePermissions(visit.lms.state, visit.user.id, visit.course.id);
  const base = `/courses/${visit.course.id}/quizzes/${quiz.id}`;
  const take = rights.has('participate_as_student')
    ? `<a href="${base}/take?user_id=${visit.user.id}" id="take_quiz_link" class="btn btn-primary" data-method="post">Take the Quiz</a>`
    : '';
  const preview = rights.has('read_as_admin')
    ? `<a href="${base}/take?preview=1" id="preview_quiz_button" class="btn" data-method="post">Preview</a>`
    : '';
  // As the LMS does, the page shows the result of the visitor's latest finished attempt right inside `#quiz_show`.
  const latest = [...visit.lms.state.quizSubmissions.values()]
    .filter((s) => s.quizId === quiz.id && s.userId === visit.user.id && s.finishedAt !== null)
    .at(-1);
  return page(
    visit,
    quiz.title,
    `<div id="quiz_show">
<header class="quiz-header">
<h1 id="quiz_title">${escapeHtml(quiz.title)}</h1>
<div class="description user_content">${quiz.description}</div>
<ul id="quiz_details"><li>Questions: ${quiz.questionCount}</li><li>Time limit: ${quiz.timeLimit === null ? 'none' : `${quiz.timeLimit} minutes`}</li></ul>
${take}${preview}
</header>${latest === undefined ? '' : `\n${submissionResults(latest)}`}
</div>`,
    { QUIZ: { id: String(quiz.id), title: quiz.title } },
  );
}

/** The result block of a finished attempt (`app/views/quizzes/quizzes/_quiz_submission_results.html.erb`). */
function submissionResults(submission: QuizSubmission): string {
  return `<div id="quiz_submission_results" class="quiz-submission" data-attempt="${submission.attempt}">
  <p class="quiz_score">Submitted ${escapeHtml(submission.finishedAt ?? '')} (attempt ${submission.attempt}).</p>
</div>`;
}

/** The access-code prompt, exactly as the LMS renders it (`app/views/quizzes/quizzes/access_code.html.erb`). */
function accessCodePage(visit: Visit, quiz: Quiz, preview: boolean): Response {
  const action = `${visit.req.url.pathname}${visit.req.url.search}`;
  const codeFields = Array.from(
    { length: Math.max(1, quiz.accessCodePromptFields ?? 1) },
    () => '<input type="password" name="access_code" id="quiz_access_code" title="Access Code:">',
  ).join('\n    ');
  return page(
    visit,
    quiz.title,
    `<div style="width: 600px; margin: 10px auto;">
  <h2>${escapeHtml(quiz.title)}</h2>
  <p>This quiz is restricted by an access code. Enter the code your instructor gave you to take the quiz.</p>
  <form class="access_code_form" action="${escapeHtml(action)}" method="post">
    <input type="hidden" name="utf8" value="&#x2713;">
    <input type="hidden" name="authenticity_token" value="${escapeHtml(visit.session.csrfToken)}">${
      preview ? '\n    <input type="hidden" name="preview" value="1">' : ''
    }
    <label for="quiz_access_code">Access Code:</label>
    ${codeFields}
    <button class="btn" type="submit">Submit</button>
  </form>
</div>`,
    { QUIZ: { id: String(quiz.id), title: quiz.title } },
  );
}

function quizTakingPage(visit: Visit, quiz: Quiz): Response {
  const base = `/courses/${visit.course.id}/quizzes/${quiz.id}`;
  const questions = Array.from({ length: Math.max(1, quiz.questionCount) }, (_, index) => {
    const n = index + 1;
    return `<div class="question_holder"><div class="question" id="question_${n}">
  <div class="question_text">Question ${n}: explain your answer.</div>
  <textarea name="question_${n}" class="question_input" aria-label="Answer to question ${n}"></textarea>
</div></div>`;
  }).join('\n');
  return page(
    visit,
    quiz.title,
    `<div id="quiz_show">
<h1 id="quiz_title">${escapeHtml(quiz.title)}</h1>
<form id="submit_quiz_form" action="${base}/submissions?user_id=${visit.user.id}" method="post">
<input type="hidden" name="authenticity_token" value="${escapeHtml(visit.session.csrfToken)}">
<div id="questions">
${questions}
</div>
<button type="submit" class="btn btn-primary submit_button" id="submit_quiz_button">Submit Quiz</button>
</form>
</div>`,
    { QUIZ: { id: String(quiz.id), title: quiz.title }, IS_PREVIEW: visit.req.url.searchParams.get('preview') === '1' },
  );
}

/**
 * `GET|POST /courses/:course_id/quizzes/:quiz_id/take`. A quiz with an access code shows the access-code form until
 * this session has entered the current code; a wrong code shows the same form again, without a message. A blank code
 * (`null` or `""`) never prompts.
 */
function quizTake(req: RouteRequest): Response {
  const visit = courseVisit(req);
  if (visit instanceof Response) return visit;
  const quiz = visibleQuiz(visit);
  if (!quiz) return notFoundPage(visit.lms, visit, req.url);
  const rights = coursePermissions(visit.lms.state, visit.user.id, visit.course.id);
  const preview = req.url.searchParams.get('preview') === '1' || req.body.preview === '1';
  if (!(rights.has('participate_as_student') || (preview && rights.has('read_as_admin')))) {
    return unauthorizedPage(visit.lms, visit, req.url);
  }
  if (req.request.method === 'POST') checkAuthenticityToken(visit.lms, visit.session, req.body, req.url);
  const code = quiz.accessCode;
  if (code) {
    const entered = visit.session.quizAccessCodes.get(quiz.id);
    if (entered !== code) {
      if (req.request.method === 'POST' && req.body.access_code === code) {
        visit.session.quizAccessCodes.set(quiz.id, code);
      } else {
        return accessCodePage(visit, quiz, preview);
      }
    }
  }
  // Opening the quiz starts the student's attempt (`Quizzes::QuizzesController#take`, `QuizSubmissionService#create`);
  // a teacher's preview is no attempt of the course's.
  if (!preview && rights.has('participate_as_student')) visit.lms.state.startQuizAttempt(quiz.id, visit.user.id, visit.lms.clock.date().toISOString());
  return quizTakingPage(visit, quiz);
}

function quizSubmit(req: RouteRequest): Response {
  const visit = courseVisit(req);
  if (visit instanceof Response) return visit;
  const quiz = visibleQuiz(visit);
  if (!quiz) return notFoundPage(visit.lms, visit, req.url);
  checkAuthenticityToken(visit.lms, visit.session, req.body, req.url);
  if (quiz.accessCode && visit.session.quizAccessCodes.get(quiz.id) !== quiz.accessCode) {
    return unauthorizedPage(visit.lms, visit, req.url);
  }
  visit.lms.state.finishQuizAttempt(quiz.id, visit.user.id, visit.lms.clock.date().toISOString());
  // The LMS sends a final submission back to the quiz page, which shows the result.
  return redirectResponse(`/courses/${visit.course.id}/quizzes/${quiz.id}`);
}

function quizHistory(req: RouteRequest): Response {
  const visit = courseVisit(req);
  if (visit instanceof Response) return visit;
  const quiz = visibleQuiz(visit);
  const submission = visit.lms.state.quizSubmissions.get(Number(req.url.searchParams.get('quiz_submission_id')));
  if (!quiz || !submission || submission.quizId !== quiz.id || submission.userId !== visit.user.id || submission.finishedAt === null) {
    return notFoundPage(visit.lms, visit, req.url);
  }
  return page(
    visit,
    quiz.title,
    `<h1 id="quiz_title">${escapeHtml(quiz.title)}</h1>
${submissionResults(submission)}`,
    { QUIZ_SUBMISSION_ID: String(submission.id) },
  );
}

function assignmentShow(req: RouteRequest): Response {
  const visit = courseVisit(req);
  if (visit instanceof Response) return visit;
  const assignment: Assignment | undefined = visit.lms.state.assignments.get(Number(req.params.assignment_id));
  if (
    !assignment ||
    assignment.deleted ||
    assignment.courseId !== visit.course.id ||
    (!assignment.published && !canSeeUnpublished(visit.lms.state, visit.user.id, visit.course.id))
  ) {
    return notFoundPage(visit.lms, visit, req.url);
  }
  // A classic quiz's assignment page is the quiz.
  if (assignment.quizId !== null) return redirectResponse(`/courses/${visit.course.id}/quizzes/${assignment.quizId}`);
  const env = { ASSIGNMENT_ID: String(assignment.id) };
  if (assignment.newQuiz) return newQuizLaunch(visit, assignment, env);
  return page(
    visit,
    assignment.name,
    `<h1 class="title">${escapeHtml(assignment.name)}</h1><div class="description user_content">${assignment.description}</div>`,
    env,
  );
}

/**
 * A new quiz's assignment page: the launch of the New Quizzes engine, posted into the tool frame as Canvas renders an
 * external-tool assignment (`ApplicationController#content_tag_redirect`, `app/views/lti/_lti_message.html.erb`). The
 * engine runs on its own origin; its access-code prompt is in that frame, out of reach of this page's scripts.
 */
function newQuizLaunch(visit: Visit, assignment: Assignment, env: Record<string, unknown>): Response {
  const engine = visit.lms.newQuizzes.url;
  const frame = `<iframe id="tool_content" name="tool_content" class="tool_launch" title="${escapeHtml(assignment.name)}" src="about:blank" data-quiz-lti="true"></iframe>`;
  const launch =
    engine === null
      ? '<p id="new_quiz_engine_missing">The New Quizzes engine of this development LMS is not running (start it with <code>startNewQuizzesServer</code>).</p>'
      : autoPostForm({
          action: `${engine}${NEW_QUIZZES_LOGIN_PATH}`,
          target: 'tool_content',
          id: 'tool_form',
          fields: { lti_message_hint: visit.lms.newQuizzes.launchHint(visit.user.id, assignment) },
        });
  // The frame comes first: the form's inline script posts into it at once.
  return page(visit, assignment.name, `<h1 class="title">${escapeHtml(assignment.name)}</h1>\n${frame}\n${launch}`, { ...env, QUIZ_LTI: true });
}

export function coursePageRoutes(): RouteDef[] {
  return [
    publicRoute('GET', '/courses/:course_id', courseHome),
    publicRoute('GET', '/courses/:course_id/quizzes/:quiz_id', quizShow),
    publicRoute('GET', '/courses/:course_id/quizzes/:quiz_id/take', quizTake),
    publicRoute('POST', '/courses/:course_id/quizzes/:quiz_id/take', quizTake),
    // A quiz shown one question at a time continues here, through the same take checks (`config/routes.rb`:
    // `get "take/questions/:question_id" => "quizzes/quizzes#show", take: "1"`).
    publicRoute('GET', '/courses/:course_id/quizzes/:quiz_id/take/questions/:question_id', quizTake),
    publicRoute('POST', '/courses/:course_id/quizzes/:quiz_id/submissions', quizSubmit),
    publicRoute('GET', '/courses/:course_id/quizzes/:quiz_id/history', quizHistory),
    publicRoute('GET', '/courses/:course_id/assignments/:assignment_id', assignmentShow),
  ];
}
