import { HELP_REASON_MAX_LENGTH } from '@exb/shared/exam-day-help.js';
import type { Pool } from 'pg';
import { isLmsId } from '@exb/shared/content-id.js';
import { ErrorCodes } from '@exb/shared/error-codes.js';
import { audited, type AuditedBy } from '../../audit/audited.js';
import type { AuditLog } from '../../audit/audit-log.js';
import type { Clock } from '../../clock.js';
import { DomainError } from '../../domain-error.js';
import { voidStudentTokensSql } from './token-store.js';
import { readmitStepsSql } from '../exam-day/student-steps.js';


export interface ReadmitOutcome {
  readonly lmsUserId: string;
  readonly readmittedAt: string;
  /** How many of the student's outstanding links, downloaded configurations and exit grants were voided. */
  readonly voided: number;
}

/**
 * Re-admitting one student to one assessment (after a crashed exam browser, or a second device): every outstanding
 * configuration link, session start, downloaded configuration (so every proof made with it) and exit grant of the
 * student is voided, and their exam-day record goes back to the start, in one statement, so the student starts again
 * with a fresh configuration and nothing issued before still works. Audited with the required reason. The caller has
 * checked that the actor may act on the assessment.
 */
export class StudentReadmission {
  constructor(
    private readonly deps: { readonly pool: Pool; readonly audit: AuditLog; readonly clock: Clock },
  ) {}

  async readmit(by: AuditedBy, assessment: { courseId: string; contentId: string }, lmsUserId: string, reason: string): Promise<ReadmitOutcome> {
    const { courseId, contentId } = assessment;
    const trimmed = reason.trim();
    if (!isLmsId(lmsUserId)) throw new DomainError(ErrorCodes.INVALID_REQUEST, 'Name the student by their LMS user id.');
    if (trimmed.length === 0 || trimmed.length > HELP_REASON_MAX_LENGTH) {
      throw new DomainError(ErrorCodes.INVALID_REQUEST, `Give a reason of 1 to ${HELP_REASON_MAX_LENGTH} characters.`);
    }
    const target = { action: 'exam-day.readmit', courseId, contentId, details: { studentLmsUserId: lmsUserId, reason: trimmed } } as const;
    return audited(
      this.deps.audit,
      by,
      target,
      async () => {
        const at = new Date(this.deps.clock());
        const values = { course: '$1', content: '$2', student: '$3', at: '$4' };
        const result = await this.deps.pool.query<{ voided: number }>(
          `with voided as (${voidStudentTokensSql(values)}),
                reset as (${readmitStepsSql(values)})
           select count(*)::int as voided from voided`,
          [courseId, contentId, lmsUserId, at],
        );
        return { lmsUserId, readmittedAt: at.toISOString(), voided: result.rows[0]!.voided };
      },
      (outcome) => ({ voided: outcome.voided }),
    );
  }
}
