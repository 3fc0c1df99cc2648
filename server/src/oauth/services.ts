import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { AppConfig } from '../config/app-config.js';
import type { LmsClientSettings } from '../lms/client.js';
import { LmsConnector } from '../lms/connector.js';
import type { FetchLike } from '../lms/http.js';
import type { OneTimeStore } from '../security/one-time-store.js';
import { TokenKeyring } from '../security/token-keyring.js';
import { AccessTokenService, type AccessTokenServiceOptions } from './access-tokens.js';
import { LmsRefusalLog } from './lms-refusal.js';
import { PopupTicketStore } from './popup-ticket.js';
import { OAuthStateStore } from './state.js';
import { LmsTokenEndpoint } from './token-endpoint.js';
import { LmsTokenRepository } from './token-repository.js';

/** Everything the OAuth routes and the LMS client share, built once per process. */
export interface OAuthServices {
  states: OAuthStateStore;
  /** Carries the tool window's session into the authorization popup (see `popup-ticket.ts`). */
  popupTickets: PopupTicketStore;
  tokens: LmsTokenRepository;
  /** Absent when `LMS_OAUTH_CLIENT_ID`/`LMS_OAUTH_CLIENT_SECRET` are not configured. */
  tokenEndpoint: LmsTokenEndpoint | undefined;
  accessTokens: AccessTokenService;
  /** The last time the LMS refused an authorization for a reason only an administrator can fix. */
  refusals: LmsRefusalLog;
}

export interface OAuthServiceOptions {
  /** Replaces the global fetch for LMS calls. */
  fetch?: FetchLike;
  lms?: Omit<LmsClientSettings, 'lmsUrl' | 'fetch'>;
  accessTokens?: AccessTokenServiceOptions;
  tokenEndpointDeadlineMs?: number;
}

export function createTokenRepository(config: AppConfig, orm: MikroORM, logger: Logger): LmsTokenRepository {
  return new LmsTokenRepository(orm, new TokenKeyring(config.secrets.tokenEncryptionKeys), logger);
}

export function createOAuthServices(
  config: AppConfig,
  orm: MikroORM,
  oneTimeStore: OneTimeStore,
  logger: Logger,
  options: OAuthServiceOptions = {},
): { oauth: OAuthServices; lms: LmsConnector } {
  const tokens = createTokenRepository(config, orm, logger);
  const { clientId, clientSecret, redirectUri } = config.oauth;
  const tokenEndpoint =
    clientId && clientSecret
      ? new LmsTokenEndpoint({
          lmsUrl: config.lmsUrl,
          clientId,
          clientSecret,
          redirectUri,
          ...(options.fetch ? { fetch: options.fetch } : {}),
          ...(options.tokenEndpointDeadlineMs ? { deadlineMs: options.tokenEndpointDeadlineMs } : {}),
        })
      : undefined;
  const accessTokens = new AccessTokenService(tokens, tokenEndpoint, orm, logger, options.accessTokens);
  const lms = new LmsConnector(
    { ...options.lms, lmsUrl: config.lmsUrl, ...(options.fetch ? { fetch: options.fetch } : {}) },
    (holder) => accessTokens.sourceFor(holder),
  );
  return {
    oauth: { states: new OAuthStateStore(oneTimeStore), popupTickets: new PopupTicketStore(oneTimeStore), tokens, tokenEndpoint, accessTokens, refusals: new LmsRefusalLog() },
    lms,
  };
}
