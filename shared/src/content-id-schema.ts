import { z } from 'zod';
import {
  CONTENT_ID_MAX_LENGTH,
  LMS_ID_MAX_LENGTH,
  isLmsId,
  normalizeContentId,
  parseContentId,
  type ParsedContentId,
} from './content-id.js';

const LMS_ID_MESSAGE = 'Expected a positive decimal LMS id without leading zeros';
const CONTENT_ID_MESSAGE = 'Expected a content id: classicquiz_{quizId} or newquiz:{courseId}:{assignmentId}';

/** A canonical LMS id such as a course id path parameter. */
export const lmsIdSchema = z.string().max(LMS_ID_MAX_LENGTH).refine(isLmsId, LMS_ID_MESSAGE);

/** A canonical content id of either form; bare numeric ids are rejected. */
export const contentIdSchema = z
  .string()
  .max(CONTENT_ID_MAX_LENGTH)
  .refine((value) => parseContentId(value) !== null, CONTENT_ID_MESSAGE);

export const classicQuizContentIdSchema = z
  .string()
  .max(CONTENT_ID_MAX_LENGTH)
  .refine((value) => parseContentId(value)?.kind === 'classic', 'Expected classicquiz_{quizId}');

export const newQuizContentIdSchema = z
  .string()
  .max(CONTENT_ID_MAX_LENGTH)
  .refine((value) => parseContentId(value)?.kind === 'newquiz', 'Expected newquiz:{courseId}:{assignmentId}');

/** A canonical content id, parsed into its parts. */
export const parsedContentIdSchema = contentIdSchema.transform((value) => parseContentId(value) as ParsedContentId);

/**
 * An instructor path parameter: a content id or a bare classic quiz id, output as the canonical content id.
 */
export const contentIdParamSchema = z
  .string()
  .max(CONTENT_ID_MAX_LENGTH)
  .refine((value) => normalizeContentId(value) !== null, CONTENT_ID_MESSAGE)
  .transform((value) => normalizeContentId(value) as string);
