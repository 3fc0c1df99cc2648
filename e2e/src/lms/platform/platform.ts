import { constants, sign, type KeyObject } from 'node:crypto';
import type { JWK, JWTPayload } from 'jose';
import type { LmsCore } from '../context.js';
import { hmac, opaqueId, randomToken, safeEqual } from '../ids.js';
import type { User } from '../state.js';
import { buildLaunchClaims, type LaunchDescription } from './claims.js';
import { generatePlatformKey, PlatformKeySet, type PlatformKey } from './keys.js';
import { LaunchResolver, type LaunchOptions } from './launch-description.js';
import { PLATFORM_STORAGE_TARGET } from './post-message-forwarding.js';
import { parseRegistration, type ToolRegistration } from './registration.js';

export type { LaunchOptions, LaunchPlacement } from './launch-description.js';

/** How long the `lti_message_hint` (and with it the prepared launch) stays usable. */
export const MESSAGE_HINT_LIFETIME_MS = 5 * 60 * 1000;

export interface BuiltLaunch {
  verifier: string;
  user: User;
  description: LaunchDescription;
  /** The tool's OIDC login initiation URL. */
  loginUrl: string;
  /** The login initiation parameters (step 1), in the LMS's order. */
  loginParams: Record<string, string>;
  /** The id_token payload; carries `nonce` when one was given. */
  claims: JWTPayload;
  /** Signs `claims` with the platform's signing key (or the given one). */
  idToken(options?: SignOptions): Promise<string>;
}

export interface SignOptions {
  /** A platform key (its kid is used) or any RSA private key. Default: the current signing key. */
  key?: PlatformKey | KeyObject;
  kid?: string;
  alg?: 'RS256' | 'RS384' | 'RS512' | 'PS256';
  /** Extra protected-header fields. */
  header?: Record<string, unknown>;
}

interface CachedLaunch {
  verifier: string;
  userId: number;
  claims: JWTPayload;
  expiresAt: number;
  consumed: boolean;
}

/** The answer to the tool's authentication request: a form posted back to it, or a refusal page. */
export type AuthorizeOutcome =
  | { kind: 'form_post'; action: string; fields: Record<string, string> }
  | { kind: 'reject'; status: number; message: string };

function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

const REQUIRED_AUTH_PARAMS = [
  'client_id',
  'login_hint',
  'lti_message_hint',
  'nonce',
  'prompt',
  'redirect_uri',
  'response_mode',
  'response_type',
  'scope',
] as const;

/** The LMS as an LTI 1.3 platform: its key set, the installed tool, login initiation and the OIDC authorization. */
export class Platform {
  readonly keys: PlatformKeySet;
  registration: ToolRegistration;
  /** Whether the tool's LTI key is turned on; off, authorization answers `unauthorized_client`. */
  enabled = true;
  private readonly launches = new Map<string, CachedLaunch>();

  constructor(
    private readonly lms: LmsCore,
    initialKey: PlatformKey,
    private readonly initialRegistration: unknown,
  ) {
    this.keys = new PlatformKeySet(initialKey);
    this.registration = parseRegistration(initialRegistration);
  }

  reset(): void {
    this.keys.reset();
    this.registration = parseRegistration(this.initialRegistration);
    this.enabled = true;
    this.launches.clear();
  }

  jwks(): { keys: JWK[] } {
    return this.keys.jwks();
  }

  /** Installs a registration document (e.g. the running service's `/lti/config`) in place of the configured one. */
  installRegistration(document: unknown): void {
    this.registration = parseRegistration(document);
  }

  /** A key the platform does not publish (or a weak one), for deliberately broken tokens. */
  generateKey(options: { bits?: number; kid?: string } = {}): PlatformKey {
    return generatePlatformKey({ ...options, now: this.lms.clock.now() });
  }

  loginHintFor(userId: number): string {
    return opaqueId('user', userId);
  }

  /**
   * Signs claims as a compact JWS. Signing goes through node:crypto rather than a JOSE library so that deliberately
   * weak keys (1024-bit) can sign too; verifiers are expected to refuse those.
   */
  async signIdToken(claims: JWTPayload, options: SignOptions = {}): Promise<string> {
    const key = options.key ?? this.keys.active;
    const platformKey = 'privateKey' in key && 'kid' in key ? (key as PlatformKey) : undefined;
    const privateKey = platformKey ? platformKey.privateKey : (key as KeyObject);
    const alg = options.alg ?? 'RS256';
    const header = { typ: 'JWT', alg, kid: options.kid ?? platformKey?.kid ?? 'unpublished-key', ...options.header };
    const signingInput = `${base64url(header)}.${base64url(claims)}`;
    const digest = `sha${alg.slice(2)}`;
    const signature = sign(digest, Buffer.from(signingInput), {
      key: privateKey,
      ...(alg.startsWith('PS') ? { padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: Number(alg.slice(2)) / 8 } : {}),
    });
    return `${signingInput}.${signature.toString('base64url')}`;
  }

  /** Resolves who launches what, where, with which configured custom fields. */
  describe(options: LaunchOptions): LaunchDescription {
    return new LaunchResolver(this.lms, this.registration).describe(options);
  }

  /**
   * Prepares a launch as the LMS does when a user opens a placement: builds and caches the id_token payload and the
   * login initiation parameters. The cached launch can be completed once through the authorization endpoint.
   */
  buildLaunch(options: LaunchOptions): BuiltLaunch {
    const { lms } = this;
    const description = this.describe(options);
    const claims = buildLaunchClaims(lms, this.registration, description);
    for (const [key, value] of Object.entries(options.claims ?? {})) {
      if (value === undefined) delete claims[key];
      else claims[key] = value;
    }
    const verifier = randomToken(24);
    this.launches.set(verifier, {
      verifier,
      userId: description.user.id,
      claims: { ...claims },
      expiresAt: lms.clock.now() + MESSAGE_HINT_LIFETIME_MS,
      consumed: false,
    });
    if (options.nonce !== undefined) claims.nonce = options.nonce;

    const context = description.context;
    const hint = this.signMessageHint({
      verifier,
      canvas_domain: new URL(lms.baseUrl).host,
      context_type: context.kind === 'course' ? 'Course' : 'Account',
      context_id: context.kind === 'course' ? context.course.id : context.account.id,
      canvas_locale: description.user.locale,
      include_storage_target: lms.settings.platformStorage,
      exp: Math.floor((lms.clock.now() + MESSAGE_HINT_LIFETIME_MS) / 1000),
    });
    const deploymentParam = options.deploymentIdParam ?? lms.settings.loginDeploymentParam;
    const loginParams: Record<string, string> = {
      iss: lms.issuer,
      login_hint: this.loginHintFor(description.user.id),
      client_id: lms.tool.clientId,
    };
    if (deploymentParam !== 'deployment_id') loginParams.lti_deployment_id = lms.tool.deploymentId;
    if (deploymentParam !== 'lti_deployment_id') loginParams.deployment_id = lms.tool.deploymentId;
    Object.assign(loginParams, {
      target_link_uri: description.targetLinkUri,
      lti_message_hint: hint,
      canvas_environment: 'prod',
      canvas_region: 'not_configured',
    });
    // Platform storage is announced in the login and again in the launch (`post_message_forwarding.ts` beside this).
    if (lms.settings.platformStorage) loginParams.lti_storage_target = PLATFORM_STORAGE_TARGET;
    return {
      verifier,
      user: description.user,
      description,
      loginUrl: this.registration.oidcInitiationUrl,
      loginParams,
      claims,
      idToken: (signOptions) => this.signIdToken(claims, signOptions),
    };
  }

  /** The hint is an HS256 JWT only the LMS can verify; tools must echo it unchanged. */
  private signMessageHint(payload: Record<string, unknown>): string {
    const header = Buffer.from(JSON.stringify({ typ: 'JWT', alg: 'HS256' })).toString('base64url');
    const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
    return `${header}.${body}.${hmac(this.lms.secret, `${header}.${body}`)}`;
  }

  private readMessageHint(hint: string): { verifier: string } | undefined {
    const [header, body, signature] = hint.split('.');
    if (!header || !body || !signature || !safeEqual(signature, hmac(this.lms.secret, `${header}.${body}`))) return undefined;
    try {
      const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { verifier?: unknown; exp?: unknown };
      if (typeof payload.verifier !== 'string' || typeof payload.exp !== 'number') return undefined;
      if (payload.exp * 1000 <= this.lms.clock.now()) return undefined;
      return { verifier: payload.verifier };
    } catch {
      return undefined;
    }
  }

  private redirectUriAllowed(uri: string): boolean {
    return this.lms.tool.redirectUris.some((registered) => {
      if (registered.endsWith('*')) return uri.startsWith(registered.slice(0, -1));
      if (registered.includes('?')) {
        // A registered URI with a query only requires its parameters to be present.
        const expected = new URL(registered);
        let actual: URL;
        try {
          actual = new URL(uri);
        } catch {
          return false;
        }
        if (`${actual.origin}${actual.pathname}` !== `${expected.origin}${expected.pathname}`) return false;
        return [...expected.searchParams].every(([key, value]) => actual.searchParams.get(key) === value);
      }
      return registered === uri;
    });
  }

  /**
   * The OIDC authorization endpoint (step 2 → step 3). Checks the request the way the LMS does: a usable client and an
   * exactly registered `redirect_uri` (else a refusal page, nothing posted), then every required parameter and
   * `scope=openid`, the message hint, the browser's LMS session against `login_hint`, the key being on, and the
   * prepared launch being unused (each is answered by posting `error`/`error_description` back to the tool).
   */
  async authorize(params: Record<string, string | undefined>, sessionUserId: number | undefined): Promise<AuthorizeOutcome> {
    const { lms } = this;
    if (params.client_id !== undefined && params.client_id !== lms.tool.clientId) {
      return { kind: 'reject', status: 400, message: 'Invalid client_id' };
    }
    const redirectUri = params.redirect_uri;
    if (!redirectUri || !this.redirectUriAllowed(redirectUri)) {
      return { kind: 'reject', status: 400, message: 'Invalid redirect_uri' };
    }
    const fail = (error: string, description: string): AuthorizeOutcome => ({
      kind: 'form_post',
      action: redirectUri,
      fields: {
        error,
        error_description: description,
        ...(params.state !== undefined ? { state: params.state } : {}),
      },
    });
    const missing = REQUIRED_AUTH_PARAMS.filter((name) => !params[name]);
    if (missing.length > 0) return fail('invalid_request_object', `The following parameters are missing: ${missing.join(',')}`);
    if (params.scope !== 'openid') return fail('invalid_request_object', "The 'scope' must be 'openid'");

    const hint = this.readMessageHint(params.lti_message_hint!);
    if (!hint) return { kind: 'reject', status: 400, message: 'Invalid lti_message_hint' };

    if (sessionUserId === undefined || this.loginHintFor(sessionUserId) !== params.login_hint) {
      return fail('login_required', 'Must have an active user session');
    }
    if (!this.enabled) return fail('unauthorized_client', 'Client not authorized in requested context');

    const launch = this.launches.get(hint.verifier);
    if (!launch || launch.consumed || launch.expiresAt <= lms.clock.now() || launch.userId !== sessionUserId) {
      return fail('launch_no_longer_valid', 'The launch has either expired or already been consumed');
    }
    launch.consumed = true;
    const idToken = await this.signIdToken({ ...launch.claims, nonce: params.nonce });
    return {
      kind: 'form_post',
      action: redirectUri,
      fields: {
        utf8: '\u2713',
        authenticity_token: randomToken(32),
        id_token: idToken,
        ...(params.state !== undefined ? { state: params.state } : {}),
        ...(lms.settings.platformStorage ? { lti_storage_target: PLATFORM_STORAGE_TARGET } : {}),
      },
    };
  }
}
