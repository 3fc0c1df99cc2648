import { compactVerify, decodeProtectedHeader } from 'jose';
import { tokenError } from './errors.js';
import { parseTargetLinkUri, type LaunchTarget } from './launch-target.js';
import type { PlatformKeySet } from './platform-keys.js';

const LTI = 'https://purl.imsglobal.org/spec/lti/claim/';

export const LTI_CLAIMS = {
  messageType: `${LTI}message_type`,
  version: `${LTI}version`,
  deploymentId: `${LTI}deployment_id`,
  targetLinkUri: `${LTI}target_link_uri`,
  roles: `${LTI}roles`,
  custom: `${LTI}custom`,
  context: `${LTI}context`,
  resourceLink: `${LTI}resource_link`,
  launchPresentation: `${LTI}launch_presentation`,
} as const;

export const RESOURCE_LINK_REQUEST = 'LtiResourceLinkRequest';
export const DEEP_LINKING_REQUEST = 'LtiDeepLinkingRequest';
const MESSAGE_TYPES = [RESOURCE_LINK_REQUEST, DEEP_LINKING_REQUEST] as const;
export type LtiMessageType = (typeof MESSAGE_TYPES)[number];

/** Tolerated clock difference between the LMS and this service, in seconds. */
export const CLOCK_SKEW_SECONDS = 60;
/**
 * The oldest `iat` accepted. The LMS issues the token when it renders the launch, moments before the login; the login
 * state lives 10 minutes, so an older token cannot belong to a live login.
 */
export const MAX_TOKEN_AGE_SECONDS = 600;

export interface TokenExpectations {
  issuer: string;
  clientId: string;
  nonce: string;
  baseUrl: string;
  deploymentIds: readonly string[];
  deploymentIdCheckingEnabled: boolean;
  /** The endpoint's own target for `/exb/launch/:contentId`; `/lti/launch` accepts every tool target. */
  endpointTarget?: LaunchTarget;
  nowSeconds?: number;
}

/**
 * The launch's `context` claim: `id` is the platform's opaque context id and `types` its context types, both computed
 * by the LMS alone (course authors can edit only the label and title).
 */
export interface LaunchContextClaim {
  id: string;
  types: string[];
  title: string | undefined;
}

/** The signed claims a launch acts on, after every check passed. */
export interface LaunchClaims {
  issuer: string;
  subject: string;
  deploymentId: string;
  messageType: LtiMessageType;
  target: LaunchTarget;
  roles: string[];
  custom: Record<string, unknown>;
  name: string | undefined;
  context: LaunchContextClaim | undefined;
  /** `launch_presentation.locale`: the user's language in the LMS; it only chooses the words of the pages. */
  locale: string | undefined;
}

const KID = /^[\x21-\x7e]{1,256}$/;

const fail = {
  malformed: () => tokenError('LTI_TOKEN_MALFORMED', 'tokenMalformed'),
  claims: (key: 'tokenSubject' | 'tokenRoles' | 'tokenCustom' | 'tokenResourceLink' | 'tokenTimes') => tokenError('LTI_TOKEN_CLAIMS', key),
};

/**
 * Verifies an LTI 1.3 id_token (Document 1, launch step 6): RS256 signature against the LMS key set, then issuer,
 * audience, nonce, issue and expiry times, LTI version, message type, deployment id and target link URI, in that order.
 * Throws an {@link LtiError} naming the first failed check.
 */
export async function verifyIdToken(
  idToken: string,
  keySet: PlatformKeySet,
  expected: TokenExpectations,
): Promise<LaunchClaims> {
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(idToken);
  } catch {
    throw fail.malformed();
  }
  // Only RS256: never `none`, never an HMAC that a published public key could be abused as.
  if (header.alg !== 'RS256') {
    throw tokenError('LTI_TOKEN_ALGORITHM', 'tokenAlgorithm');
  }
  if (typeof header.kid !== 'string' || !KID.test(header.kid)) {
    throw tokenError('LTI_TOKEN_UNKNOWN_KEY', 'tokenKeyNotNamed');
  }
  const platformKey = await keySet.resolve(header.kid);

  let payloadBytes: Uint8Array;
  try {
    ({ payload: payloadBytes } = await compactVerify(idToken, platformKey.key, { algorithms: ['RS256'] }));
  } catch {
    throw tokenError('LTI_TOKEN_SIGNATURE', 'tokenSignature');
  }
  let payload: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(payloadBytes));
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
    if (holdsNul(parsed)) throw new Error('NUL character');
    payload = parsed as Record<string, unknown>;
  } catch {
    throw fail.malformed();
  }

  if (payload.iss !== expected.issuer) {
    throw tokenError('LTI_TOKEN_ISSUER', 'tokenIssuer');
  }

  checkAudience(payload.aud, payload.azp, expected.clientId);

  if (typeof payload.nonce !== 'string' || payload.nonce !== expected.nonce) {
    throw tokenError('LTI_TOKEN_NONCE', 'tokenNonce');
  }

  checkTimes(payload, expected.nowSeconds ?? Math.floor(Date.now() / 1000));

  if (payload[LTI_CLAIMS.version] !== '1.3.0') {
    throw tokenError('LTI_TOKEN_VERSION', 'tokenVersion');
  }

  const messageType = payload[LTI_CLAIMS.messageType];
  if (!MESSAGE_TYPES.includes(messageType as LtiMessageType)) {
    throw tokenError('LTI_TOKEN_MESSAGE_TYPE', 'tokenMessageType');
  }

  const deploymentId = payload[LTI_CLAIMS.deploymentId];
  if (typeof deploymentId !== 'string' || deploymentId.length === 0 || deploymentId.length > 256) {
    throw tokenError('LTI_TOKEN_DEPLOYMENT', 'tokenDeploymentMissing');
  }
  if (expected.deploymentIdCheckingEnabled && !expected.deploymentIds.includes(deploymentId)) {
    throw tokenError('LTI_TOKEN_DEPLOYMENT', 'deploymentUnknown');
  }

  const target = parseTargetLinkUri(payload[LTI_CLAIMS.targetLinkUri], expected.baseUrl);
  if (!target || (expected.endpointTarget && target.path !== expected.endpointTarget.path)) {
    throw tokenError('LTI_TOKEN_TARGET', 'tokenTarget');
  }

  // Identity binds to `sub` (DESIGN.md, trust model): a launch without a user is no launch this tool can act on.
  const subject = payload.sub;
  if (typeof subject !== 'string' || subject.length === 0 || subject.length > 255) throw fail.claims('tokenSubject');
  const roles = payload[LTI_CLAIMS.roles];
  if (!Array.isArray(roles) || roles.length > 100 || !roles.every((role) => typeof role === 'string' && role.length <= 512)) {
    throw fail.claims('tokenRoles');
  }
  const custom = payload[LTI_CLAIMS.custom] ?? {};
  if (!custom || typeof custom !== 'object' || Array.isArray(custom)) throw fail.claims('tokenCustom');
  if (messageType === RESOURCE_LINK_REQUEST && !readResourceLinkId(payload[LTI_CLAIMS.resourceLink])) {
    throw fail.claims('tokenResourceLink');
  }

  return {
    issuer: payload.iss,
    subject,
    deploymentId,
    messageType: messageType as LtiMessageType,
    target,
    roles: roles as string[],
    custom: custom as Record<string, unknown>,
    name: boundedString(payload.name, 256),
    context: readContext(payload[LTI_CLAIMS.context]),
    locale: readLocale(payload[LTI_CLAIMS.launchPresentation]),
  };
}

function readLocale(claim: unknown): string | undefined {
  return claim && typeof claim === 'object' ? boundedString((claim as Record<string, unknown>).locale, 64) : undefined;
}

function readResourceLinkId(claim: unknown): string | undefined {
  return claim && typeof claim === 'object' ? boundedString((claim as Record<string, unknown>).id, 255) : undefined;
}

/** A context claim without a usable id is treated as absent: nothing course- or account-scoped follows from it. */
function readContext(claim: unknown): LaunchContextClaim | undefined {
  if (!claim || typeof claim !== 'object' || Array.isArray(claim)) return undefined;
  const record = claim as Record<string, unknown>;
  const id = boundedString(record.id, 255);
  if (id === undefined) return undefined;
  const types = Array.isArray(record.type) ? record.type.filter((t): t is string => typeof t === 'string' && t.length <= 512).slice(0, 20) : [];
  return { id, types, title: boundedString(record.title, 512) };
}

/** `aud` is the client id or an array holding it; with several audiences, `azp` must name this client (OIDC §3.1.3.7). */
function checkAudience(aud: unknown, azp: unknown, clientId: string): void {
  const audiences = typeof aud === 'string' ? [aud] : Array.isArray(aud) && aud.every((a) => typeof a === 'string') ? aud : [];
  const wrong = () => tokenError('LTI_TOKEN_AUDIENCE', 'tokenAudience');
  if (!audiences.includes(clientId)) throw wrong();
  if (azp !== undefined && azp !== clientId) throw wrong();
  if (audiences.length > 1 && azp === undefined) throw wrong();
}

function checkTimes(payload: Record<string, unknown>, now: number): void {
  const { exp, iat, nbf } = payload;
  if (typeof exp !== 'number' || !Number.isFinite(exp) || typeof iat !== 'number' || !Number.isFinite(iat)) {
    throw fail.claims('tokenTimes');
  }
  if (exp <= now - CLOCK_SKEW_SECONDS) {
    throw tokenError('LTI_TOKEN_EXPIRED', 'tokenExpired');
  }
  if (iat > now + CLOCK_SKEW_SECONDS || (typeof nbf === 'number' && nbf > now + CLOCK_SKEW_SECONDS)) {
    throw tokenError('LTI_TOKEN_ISSUED_IN_FUTURE', 'tokenIssuedInFuture');
  }
  if (now - iat > MAX_TOKEN_AGE_SECONDS + CLOCK_SKEW_SECONDS) {
    throw tokenError('LTI_TOKEN_TOO_OLD', 'tokenTooOld');
  }
}

/**
 * Whether a NUL character is anywhere in the claims, in a name or a value. No LMS identifier or name carries one, and
 * PostgreSQL's text cannot hold it: a signed `sub` or `context.id` with one would fail its statement as if the database
 * were at fault. Such a token is malformed, whatever the claim.
 */
function holdsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return value.some(holdsNul);
  return Object.entries(value).some(([name, inner]) => name.includes('\u0000') || holdsNul(inner));
}

function boundedString(value: unknown, max: number): string | undefined {
  return typeof value === 'string' && value.length > 0 && value.length <= max ? value : undefined;
}
