import { setTimeout as sleep } from 'node:timers/promises';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { leaseNames, withLease } from '../db/leases.js';
import type { AccessTokenSource } from '../lms/client.js';
import type { GrantHolder } from '../lms/connector.js';
import { LmsAuthorizationRequiredError, LmsInvalidResponseError, LmsTimeoutError, LmsUnavailableError } from '../lms/errors.js';
import { TokenClientRejectedError, TokenGrantRejectedError, type LmsTokenEndpoint } from './token-endpoint.js';
import type { GrantMetadata, LmsTokenRepository, StoredGrant } from './token-repository.js';

/**
 * A grant acts only for the `(issuer, sub)` whose authorization proved its user id (DESIGN.md, trust model); a record
 * from before identity binding acts for nobody until the user authorizes again.
 */
export function grantBelongsTo(grant: Pick<GrantMetadata, 'ltiIssuer' | 'ltiSubject'>, holder: GrantHolder): boolean {
  return grant.ltiSubject !== null && grant.ltiSubject === holder.ltiSubject && grant.ltiIssuer === holder.issuer;
}

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

  /** The token source the LMS client uses for one user, acting only with a grant bound to the holder's identity. */
  sourceFor(holder: GrantHolder): AccessTokenSource {
    return {
      current: (operation) => this.current(holder, operation),
      renew: (operation, rejected) => this.renew(holder, operation, rejected),
    };
  }

  /**
   * Whether a usable, unexpired access token bound to the holder is stored right now. Reads the record only: no
   * refresh, no LMS call, and no waiting for a refresh another request runs.
   */
  async hasStoredAccessToken(holder: GrantHolder): Promise<boolean> {
    const grant = await this.repository.find(holder.lmsUserId);
    if (grant === null || grant === 'unreadable' || grant.reauthorizationRequired) return false;
    if (!grantBelongsTo(grant, holder)) return false;
    // Unexpired, as the status route promises; the skew only matters before a token is used for a call.
    return isAccessTokenFresh(grant.accessTokenExpiresAt, Date.now(), 0);
  }

  async current(holder: GrantHolder, operation: string): Promise<string> {
    const grant = this.usable(operation, holder, await this.repository.find(holder.lmsUserId));
    if (this.fresh(grant)) return grant.accessToken;
    return this.refreshOnce(holder, operation, grant.accessToken);
  }

  /** The LMS rejected `rejected`; returns a newer token (refreshing if nobody has yet) or throws authorization required. */
  renew(holder: GrantHolder, operation: string, rejected: string): Promise<string> {
    return this.refreshOnce(holder, operation, rejected);
  }

  private refreshOnce(holder: GrantHolder, operation: string, stale: string): Promise<string> {
    // Keyed by the whole identity: a request for another subject never shares a refresh it may not use.
    const key = JSON.stringify([holder.lmsUserId, holder.issuer, holder.ltiSubject]);
    const running = this.inflight.get(key);
    if (running) return running;
    const refresh = this.refreshUnderLease(holder, operation, stale).finally(() => this.inflight.delete(key));
    this.inflight.set(key, refresh);
    return refresh;
  }

  private async refreshUnderLease(holder: GrantHolder, operation: string, stale: string): Promise<string> {
    const { lmsUserId } = holder;
    const lease = { name: leaseNames.tokenRefresh(lmsUserId), ttlSeconds: this.options.leaseTtlSeconds, logger: this.logger };
    const giveUpAt = Date.now() + this.options.waitTimeoutMs;
    for (;;) {
      const outcome = await withLease(this.orm, lease, () => this.refreshHoldingLease(holder, operation, stale));
      if (outcome.held) return outcome.value;
      // Another instance is refreshing: its result lands in the record.
      await sleep(this.options.pollIntervalMs);
      const grant = this.usable(operation, holder, await this.repository.find(lmsUserId));
      if (grant.accessToken !== stale && this.fresh(grant)) return grant.accessToken;
      if (Date.now() >= giveUpAt) throw new LmsTimeoutError(operation);
    }
  }

  private async refreshHoldingLease(holder: GrantHolder, operation: string, stale: string): Promise<string> {
    const { lmsUserId } = holder;
    const grant = this.usable(operation, holder, await this.repository.find(lmsUserId));
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
      const latest = this.usable(operation, holder, await this.repository.find(lmsUserId));
      if (this.fresh(latest)) return latest.accessToken;
      throw new LmsAuthorizationRequiredError(operation, 'reauthorization-required');
    }
    return refreshed.accessToken;
  }

  private usable(operation: string, holder: GrantHolder, grant: StoredGrant | 'unreadable' | null): StoredGrant {
    if (grant === null) throw new LmsAuthorizationRequiredError(operation, 'no-grant');
    if (grant === 'unreadable') throw new LmsAuthorizationRequiredError(operation, 'unreadable');
    if (!grantBelongsTo(grant, holder)) throw new LmsAuthorizationRequiredError(operation, 'identity-unproven');
    if (grant.reauthorizationRequired) throw new LmsAuthorizationRequiredError(operation, 'reauthorization-required');
    return grant;
  }

  private fresh(grant: StoredGrant): boolean {
    return isAccessTokenFresh(grant.accessTokenExpiresAt, Date.now(), this.options.expirySkewMs);
  }
}
