import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Session } from '@fastify/secure-session';
import { z } from 'zod';
import { AUDIT_EXPORT_ROUTE, EXB_LAUNCH_ROUTE, LTI_LAUNCH_ROUTE } from '@exb/shared/service-paths.js';
import { SESSION_TOKEN_HEADER, SESSION_TOKEN_PARAM } from '@exb/shared/session-token.js';
import { isExamDayTokenPath } from '@exb/shared/exam-day-live.js';
import { open, seal } from './aead.js';
import { readSession, SESSION_MAX_AGE_MS, sessionDataSchema, type SessionData } from './session.js';

/**
 * The session without a cookie: the same session data, sealed as a short-lived token that the tool's page holds in
 * memory and sends as a header on its own requests (`client/src/lib/session-token.ts`). A browser that keeps no
 * cookie in the LMS's frame still has its session this way. The header is set only by the tool's own scripts (no
 * other site can make a browser send it), and every rule of the session stays: its absolute age (a token never
 * outlives the session's 12 hours), the person's session generation (`dropEndedSession` runs after it), its id (which
 * OAuth states and action tokens bind to), and the Fetch Metadata check of mutations.
 */
export { SESSION_TOKEN_HEADER, SESSION_TOKEN_PARAM } from '@exb/shared/session-token.js';

/** A token lives this long; each answer to a request that carried one brings a fresh one. */
export const SESSION_TOKEN_TTL_MS = 60 * 60 * 1000;

/** Sessions are a few hundred bytes; anything much longer is not a token this service sealed. */
const MAX_TOKEN_LENGTH = 8192;
const TOKEN = /^[A-Za-z0-9_-]+$/;
// The purpose is bound into every token: no other sealed value of the service opens as a session token.
const ASSOCIATED_DATA = 'exb-session-token-v1';

const tokenBodySchema = z.object({ session: sessionDataSchema, expiresAt: z.number() });

export class SessionTokens {
  constructor(
    private readonly key: Buffer,
    private readonly now: () => number = Date.now,
  ) {}

  /** A token for `session`, expiring in {@link SESSION_TOKEN_TTL_MS} or with the session, whichever comes first. */
  issue(session: SessionData): string {
    const expiresAt = Math.min(this.now() + SESSION_TOKEN_TTL_MS, session.createdAt + SESSION_MAX_AGE_MS);
    return seal(this.key, Buffer.from(JSON.stringify({ session, expiresAt })), ASSOCIATED_DATA).toString('base64url');
  }

  /** The session a token carries; `null` for anything malformed, tampered with, sealed for another purpose or expired. */
  open(token: unknown): SessionData | null {
    if (typeof token !== 'string' || token.length > MAX_TOKEN_LENGTH || !TOKEN.test(token)) return null;
    const plaintext = open(this.key, Buffer.from(token, 'base64url'), ASSOCIATED_DATA);
    if (plaintext === null) return null;
    let parsed;
    try {
      parsed = tokenBodySchema.safeParse(JSON.parse(plaintext.toString('utf8')));
    } catch {
      return null;
    }
    if (!parsed.success || this.now() >= parsed.data.expiresAt) return null;
    return parsed.data.session;
  }
}

const carriedToken = new WeakSet<FastifyRequest>();

/**
 * What a navigation may open with the token in its query (`?session_token=`), as a navigation or a download link
 * cannot send a header: the role view's reload, an exam-browser launch's page, the administrator's audit trail
 * export, and the exam-day board's live stream (an `EventSource` sends no headers) and CSV download. A page takes the token from its address at once (its address becomes the plain reload address), and logged
 * URLs carry no query values (`logger.ts`).
 */
const EXB_LAUNCH_PREFIX = EXB_LAUNCH_ROUTE.path.slice(0, EXB_LAUNCH_ROUTE.path.indexOf(':'));

function tokenInQuery(request: FastifyRequest): unknown {
  if (request.method !== 'GET') return undefined;
  const path = request.url.split('?')[0] ?? '';
  if (path !== LTI_LAUNCH_ROUTE.path && path !== AUDIT_EXPORT_ROUTE.path && !path.startsWith(EXB_LAUNCH_PREFIX) && !isExamDayTokenPath(path)) return undefined;
  const query = request.query as Record<string, unknown> | undefined;
  return query?.[SESSION_TOKEN_PARAM];
}

/**
 * Runs after the session cookie is opened and before anything reads the session: a request carrying the header (or a
 * session page's navigation carrying the token in its query) is served with the token's session. A token that does
 * not open (expired, tampered with, malformed) gives no session, whatever cookie came along: the page that sent it
 * holds no other session.
 */
export function adoptTokenSession(
  request: FastifyRequest,
  tokens: Pick<SessionTokens, 'open'>,
  createSession: (data?: Record<string, unknown>) => Session,
): void {
  const header = request.headers[SESSION_TOKEN_HEADER] ?? tokenInQuery(request);
  if (header === undefined) return;
  const session = tokens.open(header);
  request.session = unsaved(createSession(session === null ? {} : { data: session }));
  if (session !== null) carriedToken.add(request);
}

/**
 * A token's session never reaches the cookie: whatever the request changes in it travels only in the fresh token
 * ({@link renewTokenSession}). Otherwise a page opened with someone else's token in its address (or a dropped token)
 * would answer with a cookie replacing the browser's own session. The cookie plugin writes only a changed session.
 */
function unsaved(session: Session): Session {
  return new Proxy(session, { get: (target, prop) => (prop === 'changed' ? false : Reflect.get(target, prop)) });
}

/** The answer to a request that carried a token brings a fresh one of its session (as the request left it), if any. */
export function renewTokenSession(request: FastifyRequest, reply: FastifyReply, tokens: Pick<SessionTokens, 'issue'>): void {
  if (!carriedToken.has(request)) return;
  const session = readSession(request);
  if (session !== null) void reply.header(SESSION_TOKEN_HEADER, tokens.issue(session));
}
