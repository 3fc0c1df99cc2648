import { z } from 'zod';
import { READMIT_REASON_MAX_LENGTH } from '../../domain/exam-day/readmission.js';

/**
 * The input of an exam-day action on one student, beside the assessment: the student's LMS user id and the reason the
 * audit trail keeps. Bounded here so hostile input stays cheap; the service checks the id's form and the trimmed reason.
 */
export const readmitInput = {
  lmsUserId: z.union([z.string().max(64), z.number().int().nonnegative()]).transform(String),
  reason: z.string().max(READMIT_REASON_MAX_LENGTH * 2),
};
