import type { Logger } from 'pino';
import { auditActor, type AuditLog, type AuditOutcome, type SqlExecutor } from '../../audit/audit-log.js';
import type { Principal } from '../../identity/principal.js';

/** Audit entries of a list are bounded (the trail's detail lists hold 100 strings). */
const MAX_LISTED = 100;

export interface ResetAuditDetails {
  readonly assessmentsCleared?: number;
  /** Codes removed in the LMS; the name avoids the word the trail reserves for secrets, and holds a count only. */
  readonly codesRemoved?: number;
  readonly receiptId?: string;
  readonly errorCode?: string;
  readonly failedStep?: string;
  /** Content ids a person has to check in the LMS. */
  readonly toCheck?: readonly string[];
}

/**
 * Every reset, successful or not, in the audit trail (`course.reset`): who, when, which course, the outcome, counts and
 * content ids, never a code. A success is recorded inside the reset's transaction (so the trail never claims a reset
 * that rolled back); every other outcome after the fact, and a trail that cannot be written then is logged instead of
 * hiding the reset's own answer.
 */
export class ResetAudit {
  constructor(
    private readonly audit: AuditLog,
    private readonly logger: Logger,
    private readonly who: { principal: Principal & { accountId: string }; courseId: string; requestId: string | null },
  ) {}

  async record(outcome: AuditOutcome, details: ResetAuditDetails, executor?: SqlExecutor): Promise<void> {
    const { principal, courseId, requestId } = this.who;
    const entry = {
      action: 'course.reset',
      outcome,
      actor: auditActor(principal),
      rootAccountId: principal.accountId,
      courseId,
      requestId,
      details: definedOnly({ ...details, toCheck: details.toCheck?.slice(0, MAX_LISTED) }),
    };
    if (executor !== undefined) {
      await this.audit.record(entry, executor);
      return;
    }
    await this.audit.record(entry).catch((error: unknown) =>
      this.logger.error({ err: error, courseId, outcome, details: entry.details }, 'course reset could not be written to the audit trail'),
    );
  }
}

function definedOnly(details: Record<string, number | string | readonly string[] | undefined>): Record<string, number | string | string[]> {
  const entries = Object.entries(details).filter((entry): entry is [string, number | string | readonly string[]] => entry[1] !== undefined);
  return Object.fromEntries(entries.map(([key, value]) => [key, typeof value === 'object' ? [...value] : value]));
}
