import { timingSafeEqual } from 'node:crypto';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { Locale } from '@exb/shared/i18n/locale.js';
import type { AppConfig } from '../config/app-config.js';
import { translator } from '../i18n/translator.js';
import type { Principal } from '../identity/principal.js';
import { sessionBindingHash, type SessionData } from '../security/session.js';
import { scopesForProfile } from './grant-rules.js';
import { lmsHomeUrl } from '../lms/pages.js';
import { redirectUrlOrDefault, safeLocalPath, DEFAULT_REDIRECT_PATH } from './redirect.js';
import { principalBinding, PURPOSE_BY_KIND, type OAuthState, type OAuthStateStore } from './state.js';
import type { LmsTokenEndpoint } from './token-endpoint.js';
import { GrantDowngradeRefusedError, IdentityBindingConflictError, type LmsTokenRepository } from './token-repository.js';
import type { IdentityService } from '../identity/identity-service.js';
import { isConfigurationRefusal, lmsRefusalFailure, missingScopesOf, type LmsRefusalFailure, type LmsRefusalLog } from './lms-refusal.js';

/** Why a callback failed; shown to the user as a sentence, logged as the code. */
export type CallbackFailure =
  | LmsRefusalFailure
  | 'invalid-request'
  | 'unknown-state'
  | 'no-principal'
  | 'role-mismatch'
  | 'binding-mismatch'
  | 'replayed-state'
  | 'not-configured'
  | 'exchange-failed'
  | 'user-mismatch'
  | 'identity-conflict'
  | 'grant-narrowed';

/** The sentence the error view shows for a failure, in `locale` (`launch:oauth.failure.*`); the code is never translated. */
export function callbackFailureMessage(failure: CallbackFailure, locale: Locale): string {
  return translator(locale)(`launch:oauth.failure.${failure}`);
}

export const callbackQuerySchema = z.object({
  code: z.string().min(1).max(4096).optional(),
  state: z.string().min(1).max(256).optional(),
  error: z.string().max(256).optional(),
  error_description: z.string().max(2048).optional(),
});

export type CallbackView =
  | { view: 'lms-oauth-connected'; lmsReturnUrl: string; redirectUrl: string }
  | { view: 'student-session-connected'; returnUrl: string };

export interface CallbackFailed {
  ok: false;
  failure: CallbackFailure;
  /** The LMS's `error` and `error_description`, cleaned for display (step 1 only). */
  lmsError?: string;
  lmsErrorDescription?: string;
  /** For `lms-scope-missing`: the scopes of this service the developer key lacks, as the LMS named them. */
  missingScopes?: string[];
}

export type CallbackOutcome = { ok: true; view: CallbackView; grantType: string } | CallbackFailed;

function fail(failure: CallbackFailure, details: Pick<CallbackFailed, 'lmsError' | 'lmsErrorDescription' | 'missingScopes'> = {}): CallbackFailed {
  return { ok: false, failure, ...details };
}

export interface CallbackDependencies {
  config: AppConfig;
  states: OAuthStateStore;
  tokens: LmsTokenRepository;
  tokenEndpoint: LmsTokenEndpoint | undefined;
  /** Proves the principal's course or account with the grant just stored (best effort). */
  identity: Pick<IdentityService, 'afterAuthorization'>;
  /** Where refusals only an administrator can fix are kept for the status page. */
  refusals: LmsRefusalLog;
  logger: Logger;
}

/** The longest LMS error description the error view shows; longer ones are cut with an ellipsis. */
export const MAX_LMS_ERROR_DESCRIPTION_LENGTH = 160;

/**
 * LMS-provided text shown in the error view: printable, single-line and short, whatever a crafted link carries (anyone
 * can send a user to the callback with an `error_description` of their choosing). The view shows it as plain text.
 */
function displayText(value: string | undefined, max: number): string | undefined {
  if (value === undefined) return undefined;
  const cleaned = value
    .replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (cleaned.length === 0) return undefined;
  const characters = [...cleaned];
  return characters.length <= max ? cleaned : `${characters.slice(0, max - 1).join('').trimEnd()}…`;
}

function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** Step 5: every identity field the state bound, the session and, for administrators, the root account. */
function bindingMatches(state: OAuthState, principal: Principal, session: SessionData): boolean {
  const expected = principalBinding(principal);
  return (
    state.lmsUserId === expected.lmsUserId &&
    state.ltiSubject === expected.ltiSubject &&
    state.issuer === expected.issuer &&
    state.deploymentId === expected.deploymentId &&
    state.courseId === expected.courseId &&
    state.accountId === expected.accountId &&
    sameSecret(state.sessionHash, sessionBindingHash(session))
  );
}

/**
 * `/api/oauth2callback`, the ten steps of Document 1 in order. Nothing is consumed before the principal, role and
 * binding checks pass, so a stray or hostile callback cannot burn a user's pending state; once consumed, a state can
 * never be used again, whatever happens after.
 */
export async function completeAuthorization(
  deps: CallbackDependencies,
  session: SessionData | null,
  rawQuery: unknown,
): Promise<CallbackOutcome> {
  const parsed = callbackQuerySchema.safeParse(rawQuery ?? {});
  if (!parsed.success) return fail('invalid-request');
  const query = parsed.data;

  // 1. The LMS reports a refusal or error: nothing is exchanged, and the state stays for another attempt.
  if (query.error !== undefined) {
    const failure = lmsRefusalFailure(query.error);
    const missingScopes = failure === 'lms-scope-missing' ? missingScopesOf(query.error_description) : [];
    // Recorded only for a state this service issued, so a crafted link cannot put a refusal on the status page.
    if (isConfigurationRefusal(failure) && query.state !== undefined && (await deps.states.peek(query.state))) {
      deps.refusals.record(query.error, missingScopes);
      deps.logger.warn({ lmsError: query.error, missingScopes }, 'LMS refused the authorization; the developer key needs an administrator');
    }
    const lmsError = displayText(query.error, 64);
    const lmsErrorDescription = displayText(query.error_description, MAX_LMS_ERROR_DESCRIPTION_LENGTH);
    return fail(failure, {
      ...(lmsError ? { lmsError } : {}),
      ...(lmsErrorDescription ? { lmsErrorDescription } : {}),
      ...(missingScopes.length > 0 ? { missingScopes } : {}),
    });
  }
  if (query.state === undefined || query.code === undefined) return fail('invalid-request');

  // 2. Peek without consuming.
  const state = await deps.states.peek(query.state);
  if (!state) return fail('unknown-state');

  // 3. A principal in this session.
  if (!session) return fail('no-principal');
  const { principal } = session;

  // 4. The principal's role matches the purpose.
  if (PURPOSE_BY_KIND[principal.kind] !== state.purpose) return fail('role-mismatch');

  // 5. Full binding.
  if (!bindingMatches(state, principal, session)) return fail('binding-mismatch');

  // 6. Atomic consumption: of parallel or replayed callbacks, exactly one continues.
  const consumed = await deps.states.consume(query.state);
  if (!consumed) return fail('replayed-state');

  // 7. Server-side code exchange (deadline and 64 KB cap in the endpoint client).
  const { tokenEndpoint } = deps;
  if (!tokenEndpoint) return fail('not-configured');
  let grant;
  try {
    grant = await tokenEndpoint.exchangeCode(query.code);
  } catch (error) {
    deps.logger.warn({ err: error, purpose: consumed.purpose }, 'LMS OAuth code exchange failed');
    return fail('exchange-failed');
  }

  // 8. The token belongs to the verified user: the LMS itself proves the claimed user id for this session's `sub`.
  if (!grant.user || grant.user.id !== principal.lmsUserId) {
    const revoked = await tokenEndpoint.revoke(grant.accessToken);
    deps.logger.warn({ purpose: consumed.purpose, revoked }, 'LMS OAuth token belongs to another user; discarded');
    return fail('user-mismatch');
  }

  // 9. Upsert the user's one record. The LMS does not echo scopes; the granted set is the one requested (the exam-day
  // scopes as configured now: a start under another setting is at most ten minutes old).
  let stored;
  try {
    stored = await deps.tokens.saveAuthorization({
      lmsUserId: principal.lmsUserId,
      scopes: scopesForProfile(consumed.oauthScopeProfile, { examDay: deps.config.oauth.examDayScopes }),
      accessToken: grant.accessToken,
      refreshToken: grant.refreshToken,
      expiresInSeconds: grant.expiresInSeconds,
      lmsUserName: grant.user.name,
      lmsGlobalUserId: grant.user.globalId,
      lmsRegion: grant.region,
      accountId: principal.kind === 'admin' ? principal.accountId : null,
      ltiIssuer: principal.issuer,
      ltiSubject: principal.ltiSubject,
    });
  } catch (error) {
    if (error instanceof GrantDowngradeRefusedError) return fail('grant-narrowed');
    if (error instanceof IdentityBindingConflictError) {
      const revoked = await tokenEndpoint.revoke(grant.accessToken);
      deps.logger.warn({ purpose: consumed.purpose, revoked }, 'LMS OAuth grant conflicts with an identity binding; discarded');
      return fail('identity-conflict');
    }
    throw error;
  }

  // With the user proven, the course or account of the launch can be proven through the same grant.
  await deps.identity.afterAuthorization(principal);

  // 10. A completion view without privileges; never a management view.
  const view: CallbackView =
    principal.kind === 'student'
      ? { view: 'student-session-connected', returnUrl: safeLocalPath(consumed.redirectUrl, deps.config.baseUrl) ?? `${DEFAULT_REDIRECT_PATH}?connected=1` }
      : {
          view: 'lms-oauth-connected',
          lmsReturnUrl: lmsHomeUrl(deps.config.lmsUrl, principal),
          redirectUrl: redirectUrlOrDefault(consumed.redirectUrl, deps.config.baseUrl),
        };
  return { ok: true, view, grantType: stored.grantType };
}
