import { ErrorCodes, errorStatusAt, type AnswerErrorCode } from '@exb/shared/error-codes.js';
import type { AuthorizationStart } from '@exb/shared/oauth-popup-ticket.js';
import { z } from 'zod';
import type { AppConfig } from '../config/app-config.js';
import type { PrincipalKind } from '../identity/principal.js';
import { sessionBindingHash, type SessionData } from '../security/session.js';
import { profileForStart, scopeParameter } from './grant-rules.js';
import { redirectUrlOrDefault, studentReturnUrl } from './redirect.js';
import { principalBinding, PURPOSE_BY_KIND, type OAuthState, type OAuthStateStore } from './state.js';
import type { LmsTokenRepository } from './token-repository.js';

/** The principal kind each authorization start serves (`/api/oauth2authorize` and `/api/oauth2reauthorize` share one). */
export type StartEndpoint = PrincipalKind;

/** The endpoint kind behind each start path (`/api/<start>`). */
export const START_ENDPOINTS: Readonly<Record<AuthorizationStart, StartEndpoint>> = {
  oauth2authorize: 'instructor',
  oauth2reauthorize: 'instructor',
  'student-session-authorize': 'student',
  'admin/oauth2authorize': 'admin',
};

export const startQuerySchema = z.object({
  course_id: z.string().max(64).optional(),
  user_id: z.string().max(64).optional(),
  redirect_url: z.string().max(4096).optional(),
});

export type StartRefusal = { ok: false; status: number; code: AnswerErrorCode; message: string };
export type StartOutcome = { ok: true; location: string; state: OAuthState } | StartRefusal;

export interface StartDependencies {
  config: AppConfig;
  states: OAuthStateStore;
  tokens: LmsTokenRepository;
}

const WRONG_ROLE: Record<StartEndpoint, string> = {
  instructor: 'LMS authorization from this page is for instructors of the course.',
  student: 'LMS session authorization from this page is for students of the course.',
  admin: 'LMS administrator authorization requires a root-account administrator launch.',
};

/** A refusal of a start, under the status the error catalogue gives its code at the authorization starts. */
function refuse(code: AnswerErrorCode, message: string): StartRefusal {
  return { ok: false, status: errorStatusAt(code, 'authorizationStart'), code, message };
}

/** The answer to a start (or a popup ticket for one) without a usable session: none, or a ticket that did not redeem. */
export const PRINCIPAL_REQUIRED: StartRefusal = refuse(
  ErrorCodes.LTI_PRINCIPAL_REQUIRED,
  'Open the tool from the LMS first, then start the authorization from it.',
);

/**
 * The role rule of a start: a principal of the endpoint's kind (none: 401; another kind: 403, including a course
 * instructor at the administrator start). The popup ticket for a start applies the same rule when it is minted.
 */
export function startPrincipal(endpoint: StartEndpoint, session: SessionData | null): { ok: true; session: SessionData } | StartRefusal {
  if (!session) return PRINCIPAL_REQUIRED;
  if (session.principal.kind !== endpoint) return refuse(ErrorCodes.OAUTH_ROLE_MISMATCH, WRONG_ROLE[endpoint]);
  return { ok: true, session };
}

/**
 * The rules of the three authorization starts after the Fetch Metadata guard: the role rule of {@link startPrincipal},
 * `course_id` and `user_id` equal to the principal's when given, the return target (a safe local `redirect_url`, or for
 * students only the signed launch target), and the bound, encrypted state. Returns the LMS authorization URL.
 */
export async function startAuthorization(
  deps: StartDependencies,
  endpoint: StartEndpoint,
  session: SessionData | null,
  rawQuery: unknown,
): Promise<StartOutcome> {
  const { config } = deps;
  const access = startPrincipal(endpoint, session);
  if (!access.ok) return access;
  const { principal } = access.session;

  const query = startQuerySchema.safeParse(rawQuery ?? {});
  if (!query.success) return refuse(ErrorCodes.INVALID_REQUEST, 'The authorization request has malformed parameters.');
  const { course_id: courseId, user_id: userId, redirect_url: redirectUrl } = query.data;
  if (userId !== undefined && userId !== principal.lmsUserId) {
    return refuse(ErrorCodes.OAUTH_USER_MISMATCH, 'The authorization request is for another user.');
  }
  if (courseId !== undefined && (principal.kind === 'admin' || courseId !== principal.courseId)) {
    return refuse(ErrorCodes.OAUTH_COURSE_MISMATCH, 'The authorization request is for another course.');
  }

  const { clientId } = config.oauth;
  if (!clientId || !config.oauth.clientSecret) {
    return refuse(ErrorCodes.LMS_OAUTH_NOT_CONFIGURED, 'LMS API access is not configured for this service.');
  }

  const existing = await deps.tokens.findMetadata(principal.lmsUserId);
  const profile = profileForStart(endpoint === 'admin' ? 'admin' : 'application', existing?.grantType ?? null);
  const state: OAuthState = {
    purpose: PURPOSE_BY_KIND[endpoint],
    ...principalBinding(principal),
    sessionHash: sessionBindingHash(access.session),
    oauthScopeProfile: profile,
    redirectUrl: principal.kind === 'student' ? studentReturnUrl(access.session.launchTarget) : redirectUrlOrDefault(redirectUrl, config.baseUrl),
  };
  const token = await deps.states.issue(state);

  const location = new URL('/login/oauth2/auth', config.lmsUrl);
  location.search = new URLSearchParams({
    client_id: clientId,
    response_type: 'code',
    redirect_uri: config.oauth.redirectUri,
    state: token,
    scope: scopeParameter(profile, { examDay: config.oauth.examDayScopes }),
  }).toString();
  return { ok: true, location: location.href, state };
}
