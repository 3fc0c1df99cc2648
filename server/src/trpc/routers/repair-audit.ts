import { ErrorCodes } from '@exb/shared/error-codes.js';
import type { AppContext } from '../../context.js';
import type { AssessmentRef } from '../../domain/assessments/scope.js';
import type { RepairedView } from '../../domain/enforcement/enforcement-service.js';
import type { VerificationStatus } from '../../domain/settings/model.js';
import { auditActor } from '../../audit/audit-log.js';
import type { Principal } from '../../identity/principal.js';

export type RepairAction = 'enforcement.reapply-protection' | 'enforcement.accept-lms-code';

interface RepairContext {
  readonly app: AppContext;
  readonly principal: Principal;
  readonly requestId: string;
}

/**
 * Runs a protection repair (instructor or administrator) and records it in the audit trail either way: a repair is a
 * change to enforcement, so a failed attempt belongs in the trail as much as a successful one. The entry names what
 * the check after the repair found, never the code.
 */
export async function auditedRepair(ctx: RepairContext, ref: AssessmentRef, action: RepairAction, repair: () => Promise<RepairedView>): Promise<RepairedView> {
  const entry = {
    action,
    actor: auditActor(ctx.principal),
    rootAccountId: ctx.principal.kind === 'admin' ? ctx.principal.accountId : null,
    courseId: ref.courseId,
    contentId: ref.contentId,
    requestId: ctx.requestId,
  };
  try {
    const result = await repair();
    await ctx.app.audit.record({ ...entry, outcome: 'success', details: { verificationStatus: result.verificationStatus } });
    return result;
  } catch (error) {
    const errorCode = typeof (error as { errorCode?: unknown }).errorCode === 'string' ? (error as { errorCode: string }).errorCode : ErrorCodes.INTERNAL_ERROR;
    await ctx.app.audit.record({ ...entry, outcome: 'failed', details: { errorCode } }).catch(() => undefined);
    throw error;
  }
}

/** What a re-apply answers, by what the check right after it found. */
export function repairMessage(status: VerificationStatus): string {
  return status === 'verified'
    ? 'Protection is back in place: the LMS holds the access code again.'
    : 'The access code was sent to the LMS, but the check afterwards did not confirm it. Refresh from the LMS to check again.';
}
