import { helpReasonSchema, helpStudentIdSchema } from '@exb/shared/exam-day-help.js';

/**
 * The input of an exam-day action on one student (re-admit, exempt), beside the assessment: the student's numeric LMS
 * user id and the required reason the audit trail keeps, checked by the rules the views apply too.
 */
export const studentHelpInput = { lmsUserId: helpStudentIdSchema, reason: helpReasonSchema };
