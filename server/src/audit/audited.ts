import { ErrorCodes } from '@exb/shared/error-codes.js';
import { isDomainError } from '../domain-error.js';
import type { Principal } from '../identity/principal.js';
import { auditActor, type AuditEntryInput, type AuditLog, type AuditOutcome } from './audit-log.js';

/** Who acts, as the trail names them: the verified principal and the request the change arrived with. */
export interface AuditedBy {
  readonly principal: Principal;
  readonly requestId?: string | null;
}

/**
 * The service acting on its own, with nobody at the keyboard (the pre-exam sweep's repairs): the trail names the
 * service as the actor (`system`) and gives `reason` as why it acted.
 */
export interface ServiceActing {
  readonly service: { readonly reason: string };
}

/** Whoever an audited change is entered under: a verified principal, or the service itself. */
export type AuditedActor = AuditedBy | ServiceActing;

/** The actor of an entry the service itself makes. */
export const SERVICE_ACTOR: AuditEntryInput['actor'] = { lmsUserId: null, name: null, role: 'system' };

/** The acting principal and request of a tRPC procedure's context. */
export function auditedBy(ctx: { readonly principal: Principal; readonly requestId: string }): AuditedBy {
  return { principal: ctx.principal, requestId: ctx.requestId };
}

export type AuditDetails = NonNullable<AuditEntryInput['details']>;

/**
 * What an entry is about: the action (`area.verb`), the course and assessment it touches (none for an account-wide
 * change), and details known before the attempt (the record it is about), which the outcome's details add to.
 */
export interface AuditTarget {
  readonly action: string;
  readonly courseId: string | null;
  readonly contentId?: string | null;
  readonly details?: AuditDetails;
}

/** How an attempt that threw is entered: its outcome and the code its details name (never the error's message). */
export type FailureEntry = (error: unknown) => { readonly outcome: AuditOutcome; readonly errorCode: string };

/** A domain refusal (4xx) is `refused`, anything else `failed`; the code is the contract's or the error's class name. */
export const refusedOrFailed: FailureEntry = (error) => ({ outcome: outcomeOf(error), errorCode: errorCodeOf(error) });

/**
 * Every attempt that threw is `failed`, under the contract code the error carries or `INTERNAL_ERROR`: how protection
 * repairs (re-apply, accept the LMS's code) are entered.
 */
export const failedWithCode: FailureEntry = (error) => {
  const code = typeof error === 'object' && error !== null ? (error as { errorCode?: unknown }).errorCode : undefined;
  return { outcome: 'failed', errorCode: typeof code === 'string' ? code : ErrorCodes.INTERNAL_ERROR };
};

/**
 * Runs one change to enforcement or its secrets and records it: the attempt is entered as `pending` before `work`
 * starts, then completed with the outcome and the details `describe` gives, or, when the change throws, the outcome and
 * code `failure` gives (by default `refused` for a domain refusal, 4xx, or `failed`). Every domain service that changes
 * enforcement goes through here, so instructor and administrator actions are recorded alike.
 *
 * The order is what keeps every change in the trail: when the attempt cannot be entered, nothing is changed and the
 * caller gets the error; once the change has run, its answer is the caller's, and a completion that cannot be written
 * leaves the entry `pending` (logged) instead of telling the caller that a change which happened failed.
 */
export async function audited<T>(
  audit: AuditLog,
  by: AuditedActor,
  target: AuditTarget,
  work: () => Promise<T>,
  describe: (result: T) => AuditDetails = () => ({}),
  failure: FailureEntry = refusedOrFailed,
): Promise<T> {
  const attempt = await audit.begin(auditEntry(by, target, 'pending', target.details ?? {}));
  let result: T;
  try {
    result = await work();
  } catch (error) {
    const { outcome, errorCode } = failure(error);
    await audit.complete(attempt, outcome, { errorCode });
    throw error;
  }
  let details: AuditDetails;
  try {
    details = describe(result);
  } catch {
    // The change has happened: a detail that cannot be described must not turn its answer into a failure.
    details = {};
  }
  await audit.complete(attempt, 'success', details);
  return result;
}

export function auditEntry(by: AuditedActor, target: AuditTarget, outcome: AuditOutcome, details: AuditDetails): AuditEntryInput {
  const where = { action: target.action, outcome, courseId: target.courseId, contentId: target.contentId ?? null };
  if ('service' in by) return { ...where, actor: SERVICE_ACTOR, rootAccountId: null, requestId: null, details: { ...details, reason: by.service.reason } };
  return {
    ...where,
    actor: auditActor(by.principal),
    rootAccountId: by.principal.kind === 'admin' ? by.principal.accountId : null,
    requestId: by.requestId ?? null,
    details,
  };
}

function outcomeOf(error: unknown): AuditOutcome {
  return isDomainError(error) && error.status < 500 ? 'refused' : 'failed';
}

/** A contract error code or the error's class name: never its message, which may quote input. */
function errorCodeOf(error: unknown): string {
  if (isDomainError(error)) return error.errorCode;
  return error instanceof Error ? error.name.slice(0, 100) : 'unknown';
}

/**
 * The names of the fields whose values differ between two versions of a setting, compared by value. Only names reach
 * the trail: a password field is listed as changed, its value never is.
 */
export function changedFields<T extends object>(before: T, after: T, fields: Partial<Record<keyof T & string, string>>): string[] {
  return Object.entries(fields)
    .filter(([key]) => JSON.stringify(before[key as keyof T] ?? null) !== JSON.stringify(after[key as keyof T] ?? null))
    .map(([, label]) => label as string);
}
