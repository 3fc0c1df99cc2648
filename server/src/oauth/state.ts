import { z } from 'zod';
import type { Principal, PrincipalKind } from '../identity/principal.js';
import type { OneTimeStore } from '../security/one-time-store.js';

export const OAUTH_PURPOSES = ['lms-oauth-v2', 'lms-student-session-oauth-v1', 'lms-admin-oauth-v1'] as const;
export type OAuthPurpose = (typeof OAUTH_PURPOSES)[number];

/** The principal kind each purpose belongs to; the callback accepts a state only from that kind. */
export const PURPOSE_BY_KIND: Readonly<Record<PrincipalKind, OAuthPurpose>> = {
  instructor: 'lms-oauth-v2',
  student: 'lms-student-session-oauth-v1',
  admin: 'lms-admin-oauth-v1',
};

export const OAUTH_STATE_TTL_SECONDS = 600;

/** One namespace in the one-time store for all three purposes, so the callback can peek before knowing the purpose. */
const STORE_PURPOSE = 'lms-oauth-state';

const id = z.string().regex(/^\d{1,20}$/);
const bounded = z.string().min(1).max(512);

/** The encrypted OAuth authorization state (Document 1), every field bound at the start and checked at the callback. */
export const oauthStateSchema = z.object({
  purpose: z.enum(OAUTH_PURPOSES),
  lmsUserId: id,
  ltiSubject: bounded,
  courseId: id.optional(),
  issuer: bounded,
  deploymentId: bounded,
  sessionHash: z.string().regex(/^[0-9a-f]{64}$/),
  oauthScopeProfile: z.enum(['admin', 'application']),
  /** Instructor and administrator flows: the safe local path given at the start. Student flows: the return URL. */
  redirectUrl: z.string().max(2048),
  accountId: id.optional(),
});

export type OAuthState = z.infer<typeof oauthStateSchema>;

/** The state's fields that identify the principal, taken from the verified principal itself. */
export function principalBinding(principal: Principal): Pick<OAuthState, 'lmsUserId' | 'ltiSubject' | 'courseId' | 'issuer' | 'deploymentId' | 'accountId'> {
  return {
    lmsUserId: principal.lmsUserId,
    ltiSubject: principal.ltiSubject,
    issuer: principal.issuer,
    deploymentId: principal.deploymentId,
    ...(principal.kind === 'admin' ? { accountId: principal.accountId } : { courseId: principal.courseId }),
  };
}

/** Issues, peeks and consumes OAuth states through the encrypted, atomically consumed one-time store. */
export class OAuthStateStore {
  constructor(private readonly store: OneTimeStore) {}

  async issue(state: OAuthState): Promise<string> {
    const issued = await this.store.issue(STORE_PURPOSE, oauthStateSchema.parse(state), OAUTH_STATE_TTL_SECONDS);
    return issued.token;
  }

  async peek(token: string): Promise<OAuthState | null> {
    return this.parsed(await this.store.peek<unknown>(STORE_PURPOSE, token));
  }

  /** Exactly one caller gets the state; a replay, an expired or unknown state gives `null`. */
  async consume(token: string): Promise<OAuthState | null> {
    return this.parsed(await this.store.consume<unknown>(STORE_PURPOSE, token));
  }

  private parsed(payload: unknown): OAuthState | null {
    if (payload === null) return null;
    const parsed = oauthStateSchema.safeParse(payload);
    return parsed.success ? parsed.data : null;
  }
}
