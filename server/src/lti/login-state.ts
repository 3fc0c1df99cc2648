import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { randomToken } from '../security/random-token.js';
import { MAX_TARGET_LINK_URI_LENGTH } from './launch-target.js';

/** One-time store purpose and lifetime of the LTI login state (Document 1: 10 minutes). */
export const LOGIN_STATE_PURPOSE = 'lti-login-state';
export const LOGIN_STATE_TTL_SECONDS = 600;

/** What the encrypted login state holds between login initiation and launch. */
export const loginStateSchema = z.object({
  nonce: z.uuid(),
  /** The validated target path (`/lti/launch` or `/exb/launch/:contentId`). */
  target: z.string().max(MAX_TARGET_LINK_URI_LENGTH),
  issuer: z.string().max(1024),
  /** Binds the state to the transaction cookie of the browser that started the login. */
  transactionBinding: z.string().regex(/^[A-Za-z0-9_-]{43}$/),
  deploymentId: z.string().max(256).optional(),
  /**
   * The LMS's platform-storage frame named at the login (`lti_storage_target`): the login page also put the
   * transaction value and the nonce there, so a launch whose browser kept no cookie can prove the same browser.
   */
  storageTarget: z.string().max(255).optional(),
  createdAt: z.number(),
});

export type LoginState = z.infer<typeof loginStateSchema>;

/** The login nonce: a random UUID, echoed by the LMS inside the signed token. */
export function newNonce(): string {
  return randomUUID();
}

const COOKIE_PREFIX = 'exb_lti_tx_';
const TRANSACTION_ID = /^[A-Za-z0-9_-]{43}$/;
const ISSUED_AT = /^[0-9a-z]{1,12}$/;

/**
 * Transaction cookies a browser keeps at once. Every abandoned login leaves one for its ten minutes; without a bound,
 * a page that keeps starting logins grows the browser's requests until the service answers 431.
 */
export const MAX_TRANSACTION_COOKIES = 4;

export interface Transaction {
  /** Stored in the login state. */
  binding: string;
  cookieName: string;
  /**
   * `transaction id . binding hash . issued at` (base-36 milliseconds); only this browser has it. The time only orders
   * the browser's own cookies for {@link TransactionBinder.cookiesToClear}; it proves nothing.
   */
  cookieValue: string;
}

export type TransactionCheck = 'ok' | 'missing' | 'mismatch';

/**
 * The browser transaction of a login: a random transaction id in an HttpOnly cookie and, in the login state, an HMAC of
 * it. A launch must come from the browser holding the cookie, so a state lifted from one browser is useless in another.
 *
 * Each transaction has its own cookie name (derived from the binding), so two launches in two tabs do not overwrite
 * each other's cookie.
 */
export class TransactionBinder {
  constructor(private readonly key: Buffer) {}

  create(now: number = Date.now()): Transaction {
    const transactionId = randomToken();
    const binding = this.bind(transactionId);
    return { binding, cookieName: this.cookieName(binding), cookieValue: `${transactionId}.${binding}.${now.toString(36)}` };
  }

  /**
   * The transaction cookies to clear before a new login sets its own, oldest first, so that at most
   * {@link MAX_TRANSACTION_COOKIES} remain. Cookies without a readable time count as the oldest.
   */
  cookiesToClear(cookies: Record<string, string | undefined>): string[] {
    const held = Object.entries(cookies)
      .filter(([name]) => name.startsWith(COOKIE_PREFIX))
      .map(([name, value]) => ({ name, issuedAt: issuedAt(value) }))
      .sort((a, b) => a.issuedAt - b.issuedAt);
    return held.slice(0, Math.max(0, held.length - (MAX_TRANSACTION_COOKIES - 1))).map((cookie) => cookie.name);
  }

  cookieName(binding: string): string {
    // A prefix of an HMAC output reveals nothing about the transaction id; 96 bits keep names apart.
    return `${COOKIE_PREFIX}${binding.slice(0, 16)}`;
  }

  /** Checks the cookie a launch carries against the binding stored in the login state. */
  check(cookies: Record<string, string | undefined>, storedBinding: string): TransactionCheck {
    return this.checkValue(cookies[this.cookieName(storedBinding)], storedBinding);
  }

  /**
   * Checks a transaction value against the stored binding, wherever the browser kept it: in the transaction cookie or
   * in the LMS's platform storage (the same value, put there by the login page).
   */
  checkValue(value: string | undefined, storedBinding: string): TransactionCheck {
    if (value === undefined || value === '') return 'missing';
    const [transactionId = '', cookieBinding = '', time, ...rest] = value.split('.');
    if (rest.length > 0 || !TRANSACTION_ID.test(transactionId)) return 'mismatch';
    if (time !== undefined && !ISSUED_AT.test(time)) return 'mismatch';
    const expected = Buffer.from(this.bind(transactionId));
    // The cookie's own hash, the recomputed one and the stored one must all agree.
    return safeEqual(expected, Buffer.from(cookieBinding)) && safeEqual(expected, Buffer.from(storedBinding))
      ? 'ok'
      : 'mismatch';
  }

  private bind(transactionId: string): string {
    return createHmac('sha256', this.key).update(transactionId).digest('base64url');
  }
}

function issuedAt(value: string | undefined): number {
  const time = value?.split('.')[2];
  return time !== undefined && ISSUED_AT.test(time) ? parseInt(time, 36) : 0;
}

function safeEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
