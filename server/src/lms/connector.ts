import { LmsApi } from './api.js';
import { LmsClient, type AccessTokenSource, type LmsClientSettings } from './client.js';

/** Builds the LMS API for one user, acting with that user's OAuth grant. Route handlers get it from the context. */
export class LmsConnector {
  constructor(
    private readonly settings: LmsClientSettings,
    private readonly tokensFor: (lmsUserId: string) => AccessTokenSource,
  ) {}

  forUser(lmsUserId: string): LmsApi {
    return new LmsApi(new LmsClient(this.settings, this.tokensFor(lmsUserId)));
  }
}
