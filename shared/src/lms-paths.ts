/**
 * LMS page routes the service cares about, shared by the proof route on the server and the scripts on LMS pages so
 * that each pattern exists once. Paths are matched as the browser serializes them: case-sensitive, percent-encoding
 * left alone (an encoded digit or slash never matches), no empty segments, one optional trailing slash.
 *
 * No dependencies, so browser bundles can import it.
 */
import { classicQuizContentId, isContentId, isLmsId, newQuizContentId } from './content-id.js';

/** Longer paths are not LMS assessment pages; the bound keeps matching cheap on hostile input. */
const MAX_PATH_LENGTH = 512;
const MAX_URL_LENGTH = 4096;

/** Teacher-facing new quiz pages below the assignment route; scripts never act on them. */
export const NEW_QUIZ_AUTHORING_SEGMENTS = ['build', 'settings', 'moderate', 'reports', 'exports'] as const;

/**
 * `/courses/:courseId/quizzes/:quizId/take`: the classic quiz take page, which also renders the access-code prompt; and
 * `/courses/:courseId/quizzes/:quizId/take/questions/:questionId`, where a quiz shown one question at a time continues
 * (Canvas `config/routes.rb`: `get "take/questions/:question_id" => "quizzes/quizzes#show"`). Both are the same
 * assessment: panel, tools, proof and exit alike.
 */
export interface ClassicQuizTakePage {
  readonly kind: 'classic-take';
  readonly courseId: string;
  readonly quizId: string;
  readonly contentId: string;
  /** Set on a one-question-at-a-time page. */
  readonly questionId?: string;
}

/** `/courses/:courseId/assignments/:assignmentId`: the page that embeds a new quiz. */
export interface NewQuizAssignmentPage {
  readonly kind: 'newquiz-assignment';
  readonly courseId: string;
  readonly assignmentId: string;
  readonly contentId: string;
}

/**
 * `/courses/:courseId/quizzes/:quizId`: the classic quiz page. Before a student starts, it is the quiz's landing page
 * with "Take the Quiz" (an ordinary browser is told there that the exam browser is required, as on the take page);
 * after a final submission the LMS redirects here and renders the result (the exam browser's exit appears there). It is
 * never an assessment page for the proof.
 */
export interface ClassicQuizResultPage {
  readonly kind: 'classic-result';
  readonly courseId: string;
  readonly quizId: string;
  readonly contentId: string;
}

/** A page on which a proof may be made. */
export type AssessmentPage = ClassicQuizTakePage | NewQuizAssignmentPage;

export type LmsPage = AssessmentPage | ClassicQuizResultPage;

/** Splits an absolute path into segments, or `null` when it has empty segments, dot segments or is too long. */
function pathSegments(pathname: string): string[] | null {
  if (typeof pathname !== 'string' || pathname.length > MAX_PATH_LENGTH || !pathname.startsWith('/')) return null;
  const trimmed = pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(1, -1) : pathname.slice(1);
  const segments = trimmed.split('/');
  for (const segment of segments) {
    if (segment === '' || segment === '.' || segment === '..') return null;
  }
  return segments;
}

/**
 * The ids of `/courses/:courseId/{collection}/:itemId`, followed by `tail` when one is given, when both are LMS ids;
 * else `null`.
 */
function courseItemIds(pathname: string, collection: string, tail?: string): { courseId: string; itemId: string } | null {
  const s = pathSegments(pathname);
  if (s === null || s.length !== (tail === undefined ? 4 : 5)) return null;
  const [courses, courseId, items, itemId, last] = s;
  if (courses !== 'courses' || items !== collection || last !== tail) return null;
  if (!isLmsId(courseId) || !isLmsId(itemId)) return null;
  return { courseId, itemId };
}

export function matchClassicQuizTakePath(pathname: string): ClassicQuizTakePage | null {
  const ids = courseItemIds(pathname, 'quizzes', 'take');
  if (ids !== null) return { kind: 'classic-take', courseId: ids.courseId, quizId: ids.itemId, contentId: classicQuizContentId(ids.itemId) };
  const s = pathSegments(pathname);
  if (s === null || s.length !== 7) return null;
  const [courses, courseId, quizzes, quizId, take, questions, questionId] = s;
  if (courses !== 'courses' || quizzes !== 'quizzes' || take !== 'take' || questions !== 'questions') return null;
  if (!isLmsId(courseId) || !isLmsId(quizId) || !isLmsId(questionId)) return null;
  return { kind: 'classic-take', courseId, quizId, contentId: classicQuizContentId(quizId), questionId };
}

export function matchClassicQuizResultPath(pathname: string): ClassicQuizResultPage | null {
  const ids = courseItemIds(pathname, 'quizzes');
  if (ids === null) return null;
  return { kind: 'classic-result', courseId: ids.courseId, quizId: ids.itemId, contentId: classicQuizContentId(ids.itemId) };
}

export function matchNewQuizAssignmentPath(pathname: string): NewQuizAssignmentPage | null {
  const ids = courseItemIds(pathname, 'assignments');
  if (ids === null) return null;
  const { courseId, itemId: assignmentId } = ids;
  return { kind: 'newquiz-assignment', courseId, assignmentId, contentId: newQuizContentId(courseId, assignmentId) };
}

/** True for `/courses/:courseId/assignments/:assignmentId/{build,settings,moderate,reports,exports}[/...]`. */
export function isNewQuizAuthoringPath(pathname: string): boolean {
  const s = pathSegments(pathname);
  if (s === null || s.length < 5) return false;
  const [courses, courseId, assignments, assignmentId, section] = s;
  return (
    courses === 'courses' &&
    assignments === 'assignments' &&
    isLmsId(courseId) &&
    isLmsId(assignmentId) &&
    (NEW_QUIZ_AUTHORING_SEGMENTS as readonly string[]).includes(section as string)
  );
}

/** The classic take page or the new quiz assignment page, else `null` (authoring and all other pages). */
export function matchAssessmentPath(pathname: string): AssessmentPage | null {
  if (isNewQuizAuthoringPath(pathname)) return null;
  return matchClassicQuizTakePath(pathname) ?? matchNewQuizAssignmentPath(pathname);
}

/** Any page the LMS scripts act on: an assessment page or the classic quiz page (landing page and result). */
export function matchLmsPage(pathname: string): LmsPage | null {
  return matchAssessmentPath(pathname) ?? matchClassicQuizResultPath(pathname);
}

export function classicQuizPath(courseId: string, quizId: string): string {
  return `/courses/${checkedId(courseId)}/quizzes/${checkedId(quizId)}`;
}

export function classicQuizTakePath(courseId: string, quizId: string): string {
  return `${classicQuizPath(courseId, quizId)}/take`;
}

export function newQuizAssignmentPath(courseId: string, assignmentId: string): string {
  return `/courses/${checkedId(courseId)}/assignments/${checkedId(assignmentId)}`;
}

function checkedId(id: string): string {
  if (!isLmsId(id)) throw new RangeError('not a canonical LMS id');
  return id;
}

export interface LmsOriginOptions {
  /**
   * Also accept `http:` when the configured LMS origin itself is plain HTTP on a loopback host, for a development LMS.
   * Production configurations use HTTPS and leave this off.
   */
  readonly allowHttpLoopback?: boolean;
}

/** The origin of the configured LMS URL when it qualifies for proofs, else `null`. */
export function lmsProofOrigin(lmsUrl: string, options: LmsOriginOptions = {}): string | null {
  let parsed: URL;
  try {
    parsed = new URL(lmsUrl);
  } catch {
    return null;
  }
  if (parsed.username !== '' || parsed.password !== '') return null;
  if (parsed.protocol === 'https:') return parsed.origin;
  if (parsed.protocol === 'http:' && options.allowHttpLoopback === true && isLoopbackHost(parsed.hostname)) {
    return parsed.origin;
  }
  return null;
}

function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '127.0.0.1' || hostname === '[::1]';
}

/**
 * The assessment page a browser URL shows, or `null`. The URL must be absolute, in the canonical form browsers
 * serialize (so the string that was hashed is the page that was matched), without fragment or credentials, on the LMS
 * origin. Any query is allowed: the LMS adds `user_id` and `preview` to the take page.
 */
export function parseAssessmentUrl(url: string, lmsUrl: string, options: LmsOriginOptions = {}): AssessmentPage | null {
  if (typeof url !== 'string' || url.length > MAX_URL_LENGTH || url.includes('#')) return null;
  const origin = lmsProofOrigin(lmsUrl, options);
  if (origin === null) return null;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.href !== url || parsed.origin !== origin) return null;
  if (parsed.username !== '' || parsed.password !== '') return null;
  return matchAssessmentPath(parsed.pathname);
}

export interface ExpectedAssessment extends LmsOriginOptions {
  /** The configured LMS URL; only its origin counts. */
  readonly lmsOrigin: string;
  readonly courseId: string;
  /** Canonical content id; other spellings, including a bare quiz id, never match. */
  readonly contentId: string;
}

/**
 * The proof's URL rule: `url` is an HTTPS page on the LMS origin that is the classic quiz take page (or one of its
 * one-question-at-a-time pages) or the new quiz assignment page of exactly this course and content id.
 */
export function matchAssessmentPage(url: string, expected: ExpectedAssessment): boolean {
  if (!isContentId(expected.contentId) || !isLmsId(expected.courseId)) return false;
  const page = parseAssessmentUrl(url, expected.lmsOrigin, expected);
  return page !== null && page.courseId === expected.courseId && page.contentId === expected.contentId;
}
