/**
 * Content ids name one assessment: `classicquiz_{quizId}` for a classic quiz, `newquiz:{courseId}:{assignmentId}` for
 * a new quiz. LMS ids are positive decimal integers in canonical form (ASCII digits, no sign, no leading zero) that fit
 * a signed 64-bit column, so every accepted id has exactly one spelling and stored values compare as strings.
 *
 * This module has no dependencies so browser bundles can import it; the zod schemas live in `content-id-schema.ts`.
 */

/** Digits of the largest signed 64-bit integer, the widest id a bigint column holds. */
const LMS_ID_MAX = '9223372036854775807';

export const LMS_ID_MAX_LENGTH = LMS_ID_MAX.length;

const LMS_ID_PATTERN = /^[1-9][0-9]*$/;

export const CLASSIC_QUIZ_PREFIX = 'classicquiz_';
export const NEW_QUIZ_PREFIX = 'newquiz:';

/** Longest canonical content id: a new quiz id with two maximal ids. */
export const CONTENT_ID_MAX_LENGTH = NEW_QUIZ_PREFIX.length + 2 * LMS_ID_MAX_LENGTH + 1;

export interface ClassicQuizContent {
  readonly kind: 'classic';
  readonly quizId: string;
}

export interface NewQuizContent {
  readonly kind: 'newquiz';
  readonly courseId: string;
  readonly assignmentId: string;
}

export type ParsedContentId = ClassicQuizContent | NewQuizContent;

/** True for a canonical LMS id: `1` to `9223372036854775807`, ASCII digits only, no leading zero. */
export function isLmsId(value: unknown): value is string {
  if (typeof value !== 'string' || value.length === 0 || value.length > LMS_ID_MAX_LENGTH) return false;
  if (!LMS_ID_PATTERN.test(value)) return false;
  // Same length and digits only, so string order is numeric order.
  return value.length < LMS_ID_MAX_LENGTH || value <= LMS_ID_MAX;
}

/** Parses a canonical content id; anything else, including bare numeric ids, gives `null`. */
export function parseContentId(value: unknown): ParsedContentId | null {
  if (typeof value !== 'string' || value.length > CONTENT_ID_MAX_LENGTH) return null;
  if (value.startsWith(CLASSIC_QUIZ_PREFIX)) {
    const quizId = value.slice(CLASSIC_QUIZ_PREFIX.length);
    return isLmsId(quizId) ? { kind: 'classic', quizId } : null;
  }
  if (value.startsWith(NEW_QUIZ_PREFIX)) {
    const parts = value.slice(NEW_QUIZ_PREFIX.length).split(':');
    if (parts.length !== 2) return null;
    const [courseId, assignmentId] = parts;
    return isLmsId(courseId) && isLmsId(assignmentId) ? { kind: 'newquiz', courseId, assignmentId } : null;
  }
  return null;
}

/** True for a canonical content id of either form. */
export function isContentId(value: unknown): value is string {
  return parseContentId(value) !== null;
}

export function classicQuizContentId(quizId: string): string {
  if (!isLmsId(quizId)) throw new RangeError('quizId is not a canonical LMS id');
  return `${CLASSIC_QUIZ_PREFIX}${quizId}`;
}

export function newQuizContentId(courseId: string, assignmentId: string): string {
  if (!isLmsId(courseId) || !isLmsId(assignmentId)) throw new RangeError('courseId or assignmentId is not a canonical LMS id');
  return `${NEW_QUIZ_PREFIX}${courseId}:${assignmentId}`;
}

/** The canonical string of a parsed content id. Throws on ids that are not canonical, so no malformed id is minted. */
export function formatContentId(content: ParsedContentId): string {
  return content.kind === 'classic'
    ? classicQuizContentId(content.quizId)
    : newQuizContentId(content.courseId, content.assignmentId);
}

/**
 * The canonical content id for an instructor path parameter, which may also be a bare classic quiz id (`512` becomes
 * `classicquiz_512`). Returns `null` for anything else; callers answer without a lookup.
 */
export function normalizeContentId(value: unknown): string | null {
  if (isLmsId(value)) return `${CLASSIC_QUIZ_PREFIX}${value}`;
  return isContentId(value) ? value : null;
}

/**
 * Whether a content id may belong to `courseId`. A new quiz id embeds its course, which must equal `courseId`; a classic
 * quiz id carries no course, so this passes it and the caller must still check the stored assessment's course.
 * Invalid ids of either kind fail.
 */
export function contentIdMatchesCourse(contentId: string | ParsedContentId, courseId: string): boolean {
  if (!isLmsId(courseId)) return false;
  const parsed = typeof contentId === 'string' ? parseContentId(contentId) : canonicalParsed(contentId);
  if (parsed === null) return false;
  return parsed.kind === 'classic' || parsed.courseId === courseId;
}

function canonicalParsed(content: ParsedContentId): ParsedContentId | null {
  if (content.kind === 'classic') return isLmsId(content.quizId) ? content : null;
  if (content.kind === 'newquiz') return isLmsId(content.courseId) && isLmsId(content.assignmentId) ? content : null;
  return null;
}
