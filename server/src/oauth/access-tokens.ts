import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { releaseLease, tryAcquireLease } from '../db/leases.js';
import type { AccessTokenSource } from '../lms/client.js';
import { LmsAuthorizationRequiredError, LmsInvalidResponseError, LmsTimeoutError, LmsUnavailableError } from '../lms/errors.js';
import { TokenClientRejectedError, TokenGrantRejectedError, type LmsTokenEndpoint } from './token-endpoint.js';
import type { LmsTokenRepository, StoredGrant } from './token-repository.js';

export interface AccessTokenServiceOptions {
  /** A token this close to its expiry is refreshed before use, so it cannot expire in flight. */
  expirySkewMs?: number;
  /** Lifetime of the refresh lease; longer than the token-endpoint deadline, so a live holder never loses it. */
  leaseTtlSeconds?: number;
  /** How often a request waiting for another instance's refresh looks again. */
  pollIntervalMs?: number;
  /** How long a request waits for a refresh in total before giving up. */
  waitTimeoutMs?: number;
}

export const ACCESS_TOKEN_EXPIRY_SKEW_MS = 60_000;

/** True when the stored access token may still be used (no expiry, or expiry beyond the skew). */
export function isAccessTokenFresh(expiresAt: Date | null, now = Date.now(), skewMs = ACCESS_TOKEN_EXPIRY_SKEW_MS): boolean {
  return expiresAt === null || expiresAt.getTime() - skewMs > now;
}

/**
 * Hands out usable access tokens per LMS user. An expired token is refreshed before use, and a token the LMS rejects
 * is refreshed once; either way at most one refresh per user runs at a time, across concurrent requests of this
 * process (one shared promise) and across instances (a lease row). Everyone else waits for that refresh and uses its
 * result. A refresh the LMS refuses marks the user as needing a new authorization.
 */
export class AccessTokenService {
  private readonly inflight = new Map<string, Promise<string>>();
  private readonly options: Required<AccessTokenServiceOptions>;

  constructor(
    private readonly repository: LmsTokenRepository,
    private readonly tokenEndpoint: LmsTokenEndpoint | undefined,
    private readonly orm: MikroORM,
    private readonly logger: Logger,
    options: AccessTokenServiceOptions = {},
  ) {
    this.options = {
      expirySkewMs: ACCESS_TOKEN_EXPIRY_SKEW_MS,
      leaseTtlSeconds: 30,
      pollIntervalMs: 50,
      waitTimeoutMs: 20_000,
      ...options,
    };
  }

  /** The token source the LMS client uses for one user. */
  sourceFor(lmsUserId: string): AccessTokenSource {
    return {
      current: (operation) => this.current(lmsUserId, operation),
      renew: (operation, rejected) => this.renew(lmsUserId, operation, rejected),
    };
  }

  async current(lmsUserId: string, operation: string): Promise<string> {
    const grant = this.usable(operation, await this.repository.find(lmsUserId));
    if (this.fresh(grant)) return grant.accessToken;
    return this.refreshOnce(lmsUserId, operation, grant.accessToken);
  }

  /** The LMS rejected `rejected`; returns a newer token (refreshing if nobody has yet) or throws authorization required. */
  renew(lmsUserId: string, operation: string, rejected: string): Promise<string> {
    return this.refreshOnce(lmsUserId, operation, rejected);
  }

  private refreshOnce(lmsUserId: string, operation: string, stale: string): Promise<string> {
    const running = this.inflight.get(lmsUserId);
    if (running) return running;
    const refresh = this.refreshUnderLease(lmsUserId, operation, stale).finally(() => this.inflight.delete(lmsUserId));
    this.inflight.set(lmsUserId, refresh);
    return refresh;
  }

  private async refreshUnderLease(lmsUserId: string, operation: string, stale: string): Promise<string> {
    const leaseName = `lms-token-refresh:${lmsUserId}`;
    const owner = randomUUID();
    const giveUpAt = Date.now() + this.options.waitTimeoutMs;
    for (;;) {
      if (await tryAcquireLease(this.orm, leaseName, owner, this.options.leaseTtlSeconds)) {
        try {
          return await this.refreshHoldingLease(lmsUserId, operation, stale);
        } finally {
          await releaseLease(this.orm, leaseName, owner).catch((error: unknown) =>
            this.logger.warn({ err: error, leaseName }, 'could not release the token refresh lease'),
          );
        }
      }
      // Another instance is refreshing: its result lands in the record.
      await sleep(this.options.pollIntervalMs);
      const grant = this.usable(operation, await this.repository.find(lmsUserId));
      if (grant.accessToken !== stale && this.fresh(grant)) return grant.accessToken;
      if (Date.now() >= giveUpAt) throw new LmsTimeoutError(operation);
    }
  }

  private async refreshHoldingLease(lmsUserId: string, operation: string, stale: string): Promise<string> {
    const grant = this.usable(operation, await this.repository.find(lmsUserId));
    // Someone refreshed (or the user authorized again) between our read and the lease.
    if (grant.accessToken !== stale && this.fresh(grant)) return grant.accessToken;
    if (!grant.refreshToken || !this.tokenEndpoint) {
      await this.repository.markReauthorizationRequired(grant);
      throw new LmsAuthorizationRequiredError(operation, 'reauthorization-required');
    }
    let refreshed;
    try {
      refreshed = await this.tokenEndpoint.refresh(grant.refreshToken);
    } catch (error) {
      if (error instanceof TokenGrantRejectedError) {
        this.logger.info({ tokenRecordId: grant.id, oauthError: error.oauthError }, 'LMS refused the refresh; reauthorization required');
        await this.repository.markReauthorizationRequired(grant);
        throw new LmsAuthorizationRequiredError(operation, 'reauthorization-required', error.status);
      }
      if (error instanceof TokenClientRejectedError) {
        this.logger.error({ status: error.status }, 'LMS rejected the OAuth client credentials; check LMS_OAUTH_CLIENT_ID/SECRET');
        throw new LmsUnavailableError(operation, error.status);
      }
      throw error;
    }
    if (refreshed.user && refreshed.user.id !== lmsUserId) {
      throw new LmsInvalidResponseError(operation, 'refreshed token belongs to another user');
    }
    const saved = await this.repository.saveRefresh(grant, refreshed);
    if (!saved) {
      // A new authorization replaced the record while we refreshed; its token is the one to use.
      const latest = this.usable(operation, await this.repository.find(lmsUserId));
      if (this.fresh(latest)) return latest.accessToken;
      throw new LmsAuthorizationRequiredError(operation, 'reauthorization-required');
    }
    return refreshed.accessToken;
  }

  private usable(operation: string, grant: StoredGrant | 'unreadable' | null): StoredGrant {
    if (grant === null) throw new LmsAuthorizationRequiredError(operation, 'no-grant');
    if (grant === 'unreadable') throw new LmsAuthorizationRequiredError(operation, 'unreadable');
    if (grant.reauthorizationRequired) throw new LmsAuthorizationRequiredError(operation, 'reauthorization-required');
    return grant;
  }

  private fresh(grant: StoredGrant): boolean {
    return isAccessTokenFresh(grant.accessTokenExpiresAt, Date.now(), this.options.expirySkewMs);
  }
}
