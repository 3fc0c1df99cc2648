import type { Pool } from 'pg';
import { systemClock, type Clock } from '../clock.js';
import { open, seal } from './aead.js';
import { randomToken, sha256Hex } from './random-token.js';

export interface IssuedToken {
  token: string;
  expiresAt: Date;
}

/**
 * One-time tokens kept in PostgreSQL (`one_time_token`): OAuth states, popup tickets, LTI login states. The token itself
 * is never stored: rows are keyed by its SHA-256 and the payload is sealed with AES-GCM bound to the row id and purpose.
 * `consume` is one conditional UPDATE, so among any number of parallel requests on any number of instances exactly one
 * wins. Expiry is compared with the service clock the statements are given, like the exam-browser tokens'.
 *
 * The exam-browser flow keeps its own tokens apart (`exb_student_token`), because they are bound to an assessment and a
 * settings fingerprint and are spent in the same statement that reads that assessment's settings.
 *
 * Every student's launch writes, reads and claims a login state, so the statements are named (prepared once per
 * connection) and go to the ORM's pool directly.
 */
export class OneTimeStore {
  constructor(
    private readonly pool: Pool,
    private readonly key: Buffer,
    private readonly clock: Clock = systemClock,
  ) {}

  async issue(purpose: string, payload: unknown, ttlSeconds: number): Promise<IssuedToken> {
    const token = randomToken();
    const id = sha256Hex(token);
    const expiresAt = new Date(this.clock() + ttlSeconds * 1000);
    const sealed = seal(this.key, Buffer.from(JSON.stringify(payload), 'utf8'), `${purpose}:${id}`);
    await this.pool.query({
      name: 'one-time-token-issue',
      text: 'insert into one_time_token (id, purpose, payload, expires_at) values ($1, $2, $3, $4)',
      values: [id, purpose, sealed, expiresAt],
    });
    return { token, expiresAt };
  }

  /** Reads an unexpired, unconsumed token without consuming it. */
  async peek<T>(purpose: string, token: string): Promise<T | null> {
    const id = sha256Hex(token);
    const result = await this.pool.query<{ payload: Buffer }>({
      name: 'one-time-token-peek',
      text: 'select payload from one_time_token where id = $1 and purpose = $2 and consumed_at is null and expires_at > $3',
      values: [id, purpose, new Date(this.clock())],
    });
    return this.unseal<T>(purpose, id, result.rows[0]?.payload);
  }

  /**
   * Atomically marks the token consumed and returns its payload; `null` for unknown, expired or already used. With the
   * request's signal (`http/kit/client-signal.ts`), nothing is sent once its client is gone.
   */
  async consume<T>(purpose: string, token: string, signal?: AbortSignal): Promise<T | null> {
    const id = sha256Hex(token);
    const now = new Date(this.clock());
    signal?.throwIfAborted();
    const result = await this.pool.query<{ payload: Buffer }>({
      name: 'one-time-token-consume',
      text: `update one_time_token set consumed_at = $1
         where id = $2 and purpose = $3 and consumed_at is null and expires_at > $1
         returning payload`,
      values: [now, id, purpose],
    });
    return this.unseal<T>(purpose, id, result.rows[0]?.payload);
  }

  /** {@link consume} for a caller that read the payload before (`peek`): whether this call consumed the token. */
  async claim(purpose: string, token: string, signal?: AbortSignal): Promise<boolean> {
    signal?.throwIfAborted();
    const result = await this.pool.query({
      name: 'one-time-token-claim',
      text: `update one_time_token set consumed_at = $1
         where id = $2 and purpose = $3 and consumed_at is null and expires_at > $1`,
      values: [new Date(this.clock()), sha256Hex(token), purpose],
    });
    return result.rowCount === 1;
  }

  /** Deletes rows that can no longer be used; returns how many. */
  async purgeExpired(olderThanSeconds = 3600): Promise<number> {
    const result = await this.pool.query('delete from one_time_token where expires_at < $1', [
      new Date(this.clock() - olderThanSeconds * 1000),
    ]);
    return result.rowCount ?? 0;
  }

  private unseal<T>(purpose: string, id: string, sealed: Buffer | undefined): T | null {
    if (!sealed) return null;
    const plaintext = open(this.key, sealed, `${purpose}:${id}`);
    return plaintext ? (JSON.parse(plaintext.toString('utf8')) as T) : null;
  }
}
