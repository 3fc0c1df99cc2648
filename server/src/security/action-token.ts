import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Principal } from '../identity/principal.js';
import { deriveKey } from './derived-keys.js';
import { sessionBindingHash, type SessionData } from './session.js';

/**
 * Action tokens: short-lived HMACs the server puts into the pages it renders after a launch, and requires back on
 * state-changing requests (the config-grant body field `actionToken`, the administrator mutations' header
 * `x-exb-action-token`). A token is bound to everything that identifies the session's principal (issuer, LTI subject,
 * LMS user id, course or account, deployment id), to the session itself (the SHA-256 of its id, which every launch
 * replaces) and to one purpose, so a token leaked from one page, session, person or purpose is worthless elsewhere.
 *
 * Nothing is stored: verification recomputes the MAC from the current session. The key is derived once per process.
 *
 * Format: `v1.<purpose>.<expiry, unix seconds>.<base64url HMAC-SHA256>`.
 */

export const ACTION_TOKEN_HEADER = 'x-exb-action-token';
export const ACTION_TOKEN_BODY_FIELD = 'actionToken';
export const ACTION_TOKEN_PURPOSES = ['config-grant', 'admin-mutation'] as const;
export type ActionTokenPurpose = (typeof ACTION_TOKEN_PURPOSES)[number];

/**
 * Long enough for a student to read the required-browser page and install the exam browser before downloading; a
 * reload of the page issues a fresh one.
 */
export const ACTION_TOKEN_TTL_SECONDS = 15 * 60;

/**
 * Administrator mutations change enforcement across a whole school, so their token lives shorter; the dashboard renews
 * it through a same-origin query well before it expires (`admin.actionToken.renew`), so working for hours never meets
 * an expired one.
 */
export const ADMIN_ACTION_TOKEN_TTL_SECONDS = 10 * 60;

const TTL_SECONDS_BY_PURPOSE: Readonly<Record<ActionTokenPurpose, number>> = {
  'config-grant': ACTION_TOKEN_TTL_SECONDS,
  'admin-mutation': ADMIN_ACTION_TOKEN_TTL_SECONDS,
};

const VERSION = 'v1';
const MAC_LENGTH = 43;
const MAX_TOKEN_LENGTH = 128;
const TOKEN_PATTERN = /^v1\.([a-z-]{1,32})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/;

export type ActionTokenCheck =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: 'missing' | 'malformed' | 'expired' | 'mismatch' };

export interface ActionTokenOptions {
  /** Milliseconds since the epoch; injected so expiry can be tested. */
  now?: () => number;
  /** One lifetime for every purpose (tests); by default each purpose has its own. */
  ttlSeconds?: number;
}

function scopeOf(principal: Principal): string {
  return principal.kind === 'admin' ? `account:${principal.accountId}` : `course:${principal.courseId}`;
}

export class ActionTokens {
  private readonly now: () => number;
  private readonly ttlSeconds: number | undefined;

  constructor(
    private readonly key: Buffer,
    options: ActionTokenOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.ttlSeconds = options.ttlSeconds;
  }

  static fromAppSecret(appSecret: Buffer, options?: ActionTokenOptions): ActionTokens {
    return new ActionTokens(deriveKey(appSecret, 'action-token'), options);
  }

  /** Seconds a token of `purpose` lives from its issue. */
  lifetimeSeconds(purpose: ActionTokenPurpose): number {
    return this.ttlSeconds ?? TTL_SECONDS_BY_PURPOSE[purpose];
  }

  issue(session: Pick<SessionData, 'sid' | 'principal'>, purpose: ActionTokenPurpose): string {
    const expiry = Math.floor(this.now() / 1000) + this.lifetimeSeconds(purpose);
    return `${VERSION}.${purpose}.${expiry}.${this.mac(session, purpose, expiry)}`;
  }

  /** Constant-time in the MAC; `purpose` must be the one the token was issued for. */
  verify(token: unknown, session: Pick<SessionData, 'sid' | 'principal'>, purpose: ActionTokenPurpose): ActionTokenCheck {
    if (token === undefined || token === null || token === '') return { ok: false, reason: 'missing' };
    if (typeof token !== 'string' || token.length > MAX_TOKEN_LENGTH) return { ok: false, reason: 'malformed' };
    const match = TOKEN_PATTERN.exec(token);
    if (match === null) return { ok: false, reason: 'malformed' };
    const [, tokenPurpose = '', expiryText = '', mac = ''] = match;
    const expiry = Number(expiryText);
    const expected = Buffer.from(this.mac(session, purpose, expiry), 'utf8');
    const given = Buffer.from(mac, 'utf8');
    // Compared before the purpose and expiry, so a wrong token costs the same whatever part of it is wrong.
    const macMatches = given.length === MAC_LENGTH && timingSafeEqual(expected, given);
    if (!macMatches || tokenPurpose !== purpose) return { ok: false, reason: 'mismatch' };
    if (expiry * 1000 <= this.now()) return { ok: false, reason: 'expired' };
    return { ok: true };
  }

  private mac(session: Pick<SessionData, 'sid' | 'principal'>, purpose: ActionTokenPurpose, expiry: number): string {
    const { principal } = session;
    const bound = JSON.stringify([
      VERSION,
      purpose,
      expiry,
      principal.issuer,
      principal.ltiSubject,
      principal.lmsUserId,
      principal.kind,
      scopeOf(principal),
      principal.deploymentId,
      sessionBindingHash(session),
    ]);
    return createHmac('sha256', this.key).update(bound, 'utf8').digest('base64url');
  }
}
