import { LmsApi } from './api.js';
import { LmsClient, type AccessTokenSource, type LmsClientSettings } from './client.js';

/** Whom a grant is used for: the LMS user id, and the signed identity it must be bound to. */
export interface GrantHolder {
  lmsUserId: string;
  issuer: string;
  ltiSubject: string;
}

/**
 * Builds the LMS API for one user, acting with that user's OAuth grant, and only when the grant is bound to the
 * signed identity asking (a principal, or what a one-time token recorded of one). Route handlers get it from the context.
 */
export class LmsConnector {
  constructor(
    private readonly settings: LmsClientSettings,
    private readonly tokensFor: (holder: GrantHolder) => AccessTokenSource,
  ) {}

  /** `beforeAttempt` runs before every HTTP attempt of the API's calls (`LmsClientSettings.beforeAttempt`). */
  forPrincipal(holder: GrantHolder, options: Pick<LmsClientSettings, 'beforeAttempt'> = {}): LmsApi {
    return new LmsApi(new LmsClient({ ...this.settings, ...options }, this.tokensFor(holder)), holder.lmsUserId);
  }
}
