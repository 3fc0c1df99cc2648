import { ErrorCodes } from '@exb/shared/error-codes.js';
import { localPath } from '../../lib/launch';
import { z } from '../../lib/zod';

/** Routes of the student flow the pages call (Document 3). */
export const SESSION_READINESS_PATH = '/api/exb/session-readiness';
export const SESSION_READINESS_DISMISS_PATH = '/api/exb/session-readiness/dismiss';
const LAUNCH_HANDOFF_PATH = '/exb/launch-handoff';

/** The grant is minted on the server in well under a second; a hung request must not leave the button spinning. */
const REQUEST_TIMEOUT_MS = 15_000;

/** Where the download request came from; the handoff page words its way back accordingly. */
export type HandoffPurpose = 'student-list' | 'assessment';

export type GrantOutcome =
  | { kind: 'handoff'; handoffUrl: string }
  /** `authorizeUrl`: the authorization start the refusal named, when it named a valid one. */
  | { kind: 'authorization-required'; authorizeUrl: string | undefined }
  | { kind: 'failed'; message: string };

export type ReadinessOutcome = { kind: 'ready' } | { kind: 'authorization-required' } | { kind: 'failed'; message: string };

const handoffPath = localPath.refine((path) => new URL(path, 'http://service.invalid').pathname === LAUNCH_HANDOFF_PATH, {
  message: 'Expected the launch handoff page',
});
const grantSchema = z.object({ success: z.literal(true), handoffUrl: handoffPath });
const readinessSchema = z.object({ success: z.literal(true), checks: z.object({ lmsSessionAuthorization: z.literal(true) }) });
const refusalSchema = z.object({ error_code: z.string().optional(), message: z.string().optional() });
const authorizationRefusalSchema = z.object({ authorizeUrl: localPath });

const UNREACHABLE = 'The tool could not be reached. Check the internet connection, then try again.';
const RATE_LIMITED = 'Too many requests in a short time. Wait a minute, then try again.';
const SESSION_ELSEWHERE =
  'Your session with the tool has ended or belongs to another course. Open the tool again from your course in the LMS.';

type Answer = { status: number; body: unknown } | null;

/** A same-origin JSON `POST` with the tool's session cookie; `null` when no answer arrived. */
async function postJson(path: string, body: unknown): Promise<Answer> {
  try {
    const response = await fetch(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
      credentials: 'same-origin',
      cache: 'no-store',
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    return { status: response.status, body: await response.json().catch(() => null) };
  } catch {
    return null;
  }
}

function refusalOf(body: unknown): { code: string | undefined; message: string | undefined } {
  const parsed = refusalSchema.safeParse(body);
  return parsed.success ? { code: parsed.data.error_code, message: parsed.data.message } : { code: undefined, message: undefined };
}

/**
 * Asks for a one-time configuration grant. Success yields the same-origin handoff page that hands the `exbs://` URL
 * to the operating system; a student whose LMS sign-in for the exam browser is missing must authorize first.
 */
export async function requestConfigGrant(grantUrl: string, actionToken: string, purpose: HandoffPurpose): Promise<GrantOutcome> {
  const answer = await postJson(grantUrl, purpose === 'student-list' ? { actionToken, handoffPurpose: purpose } : { actionToken });
  if (answer === null) return { kind: 'failed', message: UNREACHABLE };
  if (answer.status === 200) {
    const granted = grantSchema.safeParse(answer.body);
    return granted.success
      ? { kind: 'handoff', handoffUrl: granted.data.handoffUrl }
      : { kind: 'failed', message: 'The tool answered in an unexpected way. Reload the page, then try again.' };
  }
  const { code, message } = refusalOf(answer.body);
  if (code === ErrorCodes.LMS_SESSION_AUTHORIZATION_REQUIRED) {
    const named = authorizationRefusalSchema.safeParse(answer.body);
    return { kind: 'authorization-required', authorizeUrl: named.success ? named.data.authorizeUrl : undefined };
  }
  if (answer.status === 429 || code === ErrorCodes.RATE_LIMITED) {
    return { kind: 'failed', message: 'Too many downloads in a short time. Wait a minute, then download again.' };
  }
  if (answer.status === 404) {
    return {
      kind: 'failed',
      message:
        'No exam browser configuration is available for this quiz right now. Your instructor may have changed the quiz settings; reload this page, and ask your instructor if the quiz is still listed.',
    };
  }
  if (answer.status === 403) {
    if (code === ErrorCodes.INVALID_ACTION_TOKEN) {
      return { kind: 'failed', message: 'This page has been open for too long. Reload it, then download the configuration again.' };
    }
    if (code === ErrorCodes.LTI_PRINCIPAL_REQUIRED) return { kind: 'failed', message: SESSION_ELSEWHERE };
    return { kind: 'failed', message: message ?? 'The download was refused. Open the tool again from your course in the LMS.' };
  }
  return {
    kind: 'failed',
    message: message ?? `The configuration could not be prepared (error ${answer.status}). Try again in a moment.`,
  };
}

/**
 * Asks whether the service can sign this student's exam browser in to the LMS. The service tries it with the LMS and
 * discards the result; nothing that signs in is ever sent to this page.
 */
export async function checkSessionReadiness(): Promise<ReadinessOutcome> {
  const answer = await postJson(SESSION_READINESS_PATH, {});
  if (answer === null) return { kind: 'failed', message: UNREACHABLE };
  if (answer.status === 200 && readinessSchema.safeParse(answer.body).success) return { kind: 'ready' };
  const { code } = refusalOf(answer.body);
  switch (code) {
    case ErrorCodes.LMS_SESSION_AUTHORIZATION_REQUIRED:
      return { kind: 'authorization-required' };
    case ErrorCodes.LTI_STUDENT_REQUIRED:
      return { kind: 'failed', message: SESSION_ELSEWHERE };
    case ErrorCodes.RATE_LIMITED:
      return { kind: 'failed', message: RATE_LIMITED };
    case ErrorCodes.LMS_SESSION_READINESS_FAILED:
      return { kind: 'failed', message: 'The LMS could not confirm the sign-in for the exam browser. Try again in a few minutes.' };
    case ErrorCodes.LMS_SESSION_UNAVAILABLE:
      return {
        kind: 'failed',
        message: 'Signing the exam browser in to the LMS is not set up for this tool. You sign in inside the exam browser yourself.',
      };
    default:
      return { kind: 'failed', message: `The check could not be completed (error ${answer.status}). Try again in a moment.` };
  }
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
  return `/api/exb/config-grant/${encodeURIComponent(courseId)}/${encodeURIComponent(contentId)}`;
}
