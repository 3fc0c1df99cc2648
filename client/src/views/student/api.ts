import { ErrorCodes } from '@exb/shared/error-codes.js';
import { SERVICE_ROUTES, servicePath } from '@exb/shared/service-paths.js';
import { i18next } from '../../i18n/i18n';
import { errorMessage } from '../../lib/error-message';
import { localPath } from '../../lib/launch';
import { sessionFetch } from '../../lib/session-token';
import { z } from '../../lib/zod';

/** Routes of the student flow the pages call (Document 3). */
export const SESSION_READINESS_PATH = servicePath(SERVICE_ROUTES.sessionReadiness);
export const SESSION_READINESS_DISMISS_PATH = servicePath(SERVICE_ROUTES.sessionReadinessDismiss);
const LAUNCH_HANDOFF_PATH = servicePath(SERVICE_ROUTES.launchHandoff);

/** The grant is minted on the server in well under a second; a hung request must not leave the button spinning. */
const REQUEST_TIMEOUT_MS = 15_000;

/** Where the download request came from; the handoff page words its way back accordingly. */
export type HandoffPurpose = 'student-list' | 'assessment';

export type GrantOutcome =
  | { kind: 'handoff'; handoffUrl: string }
  /** `authorizeUrl`: the authorization start the refusal named, when it named a valid one. */
  | { kind: 'authorization-required'; authorizeUrl: string | undefined }
  | { kind: 'failed'; message: string };

export type ReadinessOutcome =
  /** `termsAcceptanceRequired`: the LMS will ask the student to accept its terms of use before anything else. */
  | { kind: 'ready'; termsAcceptanceRequired: boolean }
  | { kind: 'authorization-required' }
  | { kind: 'failed'; message: string };

const handoffPath = localPath.refine((path) => new URL(path, 'http://service.invalid').pathname === LAUNCH_HANDOFF_PATH, {
  message: 'Expected the launch handoff page',
});
const grantSchema = z.object({ success: z.literal(true), handoffUrl: handoffPath });
const readinessSchema = z.object({
  success: z.literal(true),
  checks: z.object({ lmsSessionAuthorization: z.literal(true), lmsTermsAcceptanceRequired: z.boolean().optional() }),
});
const refusalSchema = z.object({ error_code: z.string().optional() });
const authorizationRefusalSchema = z.object({ authorizeUrl: localPath });

type Answer = { status: number; body: unknown } | null;

/** A same-origin JSON `POST` with the tool's session cookie; `null` when no answer arrived. */
async function postJson(path: string, body: unknown): Promise<Answer> {
  try {
    const response = await sessionFetch(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
      cache: 'no-store',
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    return { status: response.status, body: await response.json().catch(() => null) };
  } catch {
    return null;
  }
}

/**
 * A refusal's code, and what it says in the page's language: the `errors` message of the code. The answer's own
 * `message` is the API's English and is never shown.
 */
function refusalOf(body: unknown): { code: string | undefined; message: string | undefined } {
  const parsed = refusalSchema.safeParse(body);
  const code = parsed.success ? parsed.data.error_code : undefined;
  return { code, message: errorMessage(code) };
}

const unreachable = () => i18next.t('common:unreachable');

/**
 * Asks for a one-time configuration grant. Success yields the same-origin handoff page that hands the `sebs://`
 * launch URL to the operating system; a student whose LMS sign-in for the exam browser is missing must authorize first.
 */
export async function requestConfigGrant(grantUrl: string, actionToken: string, purpose: HandoffPurpose): Promise<GrantOutcome> {
  const answer = await postJson(grantUrl, purpose === 'student-list' ? { actionToken, handoffPurpose: purpose } : { actionToken });
  if (answer === null) return { kind: 'failed', message: unreachable() };
  if (answer.status === 200) {
    const granted = grantSchema.safeParse(answer.body);
    return granted.success
      ? { kind: 'handoff', handoffUrl: granted.data.handoffUrl }
      : { kind: 'failed', message: i18next.t('student:download.unexpectedAnswer') };
  }
  const { code, message } = refusalOf(answer.body);
  if (code === ErrorCodes.LMS_SESSION_AUTHORIZATION_REQUIRED) {
    const named = authorizationRefusalSchema.safeParse(answer.body);
    return { kind: 'authorization-required', authorizeUrl: named.success ? named.data.authorizeUrl : undefined };
  }
  // A download's budget, with or without a code: said in words about downloads.
  if (answer.status === 429 || code === ErrorCodes.RATE_LIMITED) return { kind: 'failed', message: i18next.t('student:download.rateLimited') };
  if (message !== undefined) return { kind: 'failed', message };
  // The contract's refusals without a code: no configuration for the assessment (404), a refused download (403).
  if (answer.status === 404) return { kind: 'failed', message: i18next.t('student:download.unavailable') };
  if (answer.status === 403) return { kind: 'failed', message: i18next.t('student:download.refused') };
  return { kind: 'failed', message: i18next.t('student:download.failed', { status: answer.status }) };
}

/**
 * Asks whether the service can sign this student's exam browser in to the LMS. The service tries it with the LMS and
 * discards the result; nothing that signs in is ever sent to this page.
 */
export async function checkSessionReadiness(): Promise<ReadinessOutcome> {
  const answer = await postJson(SESSION_READINESS_PATH, {});
  if (answer === null) return { kind: 'failed', message: unreachable() };
  const ready = answer.status === 200 ? readinessSchema.safeParse(answer.body) : null;
  if (ready?.success) return { kind: 'ready', termsAcceptanceRequired: ready.data.checks.lmsTermsAcceptanceRequired === true };
  const { code, message } = refusalOf(answer.body);
  if (code === ErrorCodes.LMS_SESSION_AUTHORIZATION_REQUIRED) return { kind: 'authorization-required' };
  return { kind: 'failed', message: message ?? i18next.t('student:readiness.failed', { status: answer.status }) };
}

/** Records that the student does not want the readiness prompt again; `false` when that did not work. */
export async function dismissSessionReadiness(): Promise<boolean> {
  const answer = await postJson(SESSION_READINESS_DISMISS_PATH, {});
  return answer !== null && answer.status === 200;
}

/**
 * The config-grant route of an assessment, for a required-browser page whose data does not name it (the view the
 * detector links to from the LMS quiz page); the launch pages send it with their data.
 */
export function configGrantPath(courseId: string, contentId: string): string {
  return servicePath(SERVICE_ROUTES.configGrant, [encodeURIComponent(courseId), encodeURIComponent(contentId)]);
}

export type ExemptionOutcome = { kind: 'released'; accessCode: string } | { kind: 'unavailable'; message: string } | { kind: 'failed'; message: string };

const releasedSchema = z.object({ success: z.literal(true), accessCode: z.string().min(1) });

/**
 * Asks for the access code an exemption from the exam browser releases, once. The answer is the only place the code
 * travels; the page keeps it in memory only.
 */
export async function releaseExemption(releaseUrl: string): Promise<ExemptionOutcome> {
  const answer = await postJson(releaseUrl, {});
  if (answer === null) return { kind: 'failed', message: unreachable() };
  const released = answer.status === 200 ? releasedSchema.safeParse(answer.body) : null;
  if (released?.success) return { kind: 'released', accessCode: released.data.accessCode };
  const { code, message } = refusalOf(answer.body);
  if (code === ErrorCodes.EXAM_DAY_EXEMPTION_UNAVAILABLE) return { kind: 'unavailable', message: message ?? '' };
  return { kind: 'failed', message: message ?? i18next.t('student:exemption.failed', { status: answer.status }) };
}
