/**
 * Completion evidence written by the LMS, never by this script or the service.
 *
 * Classic quiz: after a final submission the LMS redirects to the quiz page, which renders the submission result
 * directly inside `#quiz_show`: `div.quiz-submission` (score, answers) or `div.muted-notice` while grades are hidden.
 * The take page of a quiz with no attempts left renders the same page. An active attempt (`#submit_quiz_form`) or the
 * access-code prompt means the quiz is not finished.
 *
 * New quiz: the quiz runs in a cross-origin frame, so the evidence is the LMS's own submission record for the
 * assignment, read from the same-origin LMS API with the student's LMS session.
 */
import type { FetchFunction, Timers } from './http.js';
import { requestJson } from './http.js';

const RESULT_CLASSES = ['quiz-submission', 'muted-notice'];
const SUBMITTED_STATES = ['submitted', 'graded', 'pending_review'];

export function hasClassicQuizResult(doc: Document): boolean {
  if (doc.querySelector('#submit_quiz_form') !== null || doc.querySelector('form.access_code_form') !== null) return false;
  const shows = doc.querySelectorAll('#quiz_show');
  if (shows.length !== 1) return false;
  const show = shows[0];
  if (show === undefined) return false;
  let results = 0;
  for (const child of Array.from(show.children)) {
    if (child.tagName === 'DIV' && RESULT_CLASSES.some((name) => child.classList.contains(name))) results += 1;
  }
  return results === 1;
}

/** True when an LMS submission record says the student submitted (a grade without a submission does not count). */
export function isSubmittedRecord(body: unknown): boolean {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const r = body as Record<string, unknown>;
  return (
    typeof r.workflow_state === 'string' &&
    SUBMITTED_STATES.includes(r.workflow_state) &&
    typeof r.submitted_at === 'string' &&
    r.submitted_at !== ''
  );
}

/** The LMS guards session-authenticated JSON with a `while(1);` prefix; strip it before parsing. */
export function parseLmsJson(text: string): unknown {
  return JSON.parse(text.replace(/^\s*while\(1\);/, ''));
}

export function submissionRecordPath(courseId: string, assignmentId: string): string {
  return `/api/v1/courses/${courseId}/assignments/${assignmentId}/submissions/self`;
}

export async function isNewQuizSubmitted(
  fetchFn: FetchFunction,
  timers: Timers,
  lmsOrigin: string,
  courseId: string,
  assignmentId: string,
): Promise<boolean> {
  const res = await requestJson(
    fetchFn,
    timers,
    `${lmsOrigin}${submissionRecordPath(courseId, assignmentId)}`,
    { method: 'GET', credentials: 'same-origin', cache: 'no-store', redirect: 'error', headers: { accept: 'application/json' } },
    parseLmsJson,
  );
  return res !== null && res.status === 200 && isSubmittedRecord(res.body);
}
