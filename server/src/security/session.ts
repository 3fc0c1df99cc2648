import type { FastifyRequest } from 'fastify';
import { SUPPORTED_LOCALES, negotiateLocale, type Locale } from '@exb/shared/i18n/locale.js';
import { z } from 'zod';
import { principalSchema, type Principal } from '../identity/principal.js';
import { randomToken, sha256Hex } from './random-token.js';
import type { SessionGenerations } from './session-generations.js';

/**
 * What the encrypted session cookie holds. `sid` is a random session id, replaced at every successful launch (so a
 * session fixed before a launch is worthless after it); later flows bind to its SHA-256, never to the id itself.
 */
export const sessionDataSchema = z.object({
  sid: z.string().length(43),
  principal: principalSchema,
  /** The launch's validated target path (`/lti/launch` or `/exb/launch/:contentId`), from the signed token. */
  launchTarget: z.string().max(2048),
  /** The LMS page to return to (course or account), built from signed claims. */
  lmsReturnUrl: z.string().max(2048).optional(),
  /** Completed exam-browser launches: content id → epoch milliseconds. */
  exbLaunches: z.record(z.string(), z.number()).default({}),
  /** The language of the pages, from the launch's `launch_presentation.locale` (or the browser's, without one). */
  locale: z.enum(SUPPORTED_LOCALES).optional(),
  /** When the launch that created the session happened; popup handovers keep it. */
  createdAt: z.number(),
  /**
   * The person's session generation at the launch (`session-generations.ts`); a session older than the current one
   * was ended. Sessions sealed before generations existed carry none and count as generation 0.
   */
  generation: z.number().int().nonnegative().default(0),
});

export type SessionData = z.infer<typeof sessionDataSchema>;

const SESSION_KEY = 'data';

/**
 * A session ends this long after the launch that created it, however often it was used since: the cookie's own
 * expiry slides with every write, so without this a session in daily use would never end.
 */
export const SESSION_MAX_AGE_MS = 12 * 60 * 60 * 1000;

/**
 * The sealed session whatever its age, or `null`. Only a new launch of the same person reads an expired one, to carry
 * over its record of completed exam-browser launches; everything else uses {@link readSession}.
 */
export function readSessionOfAnyAge(request: FastifyRequest): SessionData | null {
  const parsed = sessionDataSchema.safeParse(request.session.get(SESSION_KEY));
  return parsed.success ? parsed.data : null;
}

/** The current session: `null` when there is none, it does not validate (e.g. after a format change) or it is too old. */
export function readSession(request: FastifyRequest, now: number = Date.now()): SessionData | null {
  const session = readSessionOfAnyAge(request);
  return session !== null && now - session.createdAt < SESSION_MAX_AGE_MS ? session : null;
}

/**
 * Runs before anything reads the request's session: empties it when the person's sessions were ended after it was
 * sealed, so every read that follows finds none (and the answer clears the cookie). A relaunch then starts a new one.
 */
export async function dropEndedSession(request: FastifyRequest, generations: Pick<SessionGenerations, 'valid'>): Promise<void> {
  const session = readSessionOfAnyAge(request);
  if (session === null) return;
  const person = { issuer: session.principal.issuer, subject: session.principal.ltiSubject };
  if (await generations.valid(person, session.generation)) return;
  request.session.regenerate();
}

export function readPrincipal(request: FastifyRequest): Principal | null {
  return readSession(request)?.principal ?? null;
}

/**
 * The language a page speaks: the session's, else the browser's Accept-Language, else English. Routes outside the
 * session's scope have no session to read, and a page must never fail over its language.
 */
export function requestLocale(request: FastifyRequest): Locale {
  const session = (request as { session?: unknown }).session === undefined ? null : readSession(request);
  return session?.locale ?? negotiateLocale(request.headers['accept-language']);
}

/** Replaces whatever session the browser had with a new one carrying a fresh session id. */
export function startSession(
  request: FastifyRequest,
  data: Omit<SessionData, 'sid' | 'createdAt' | 'exbLaunches'> & Partial<Pick<SessionData, 'exbLaunches'>>,
): SessionData {
  const session: SessionData = { exbLaunches: {}, ...data, sid: randomToken(), createdAt: Date.now() };
  request.session.regenerate();
  request.session.set(SESSION_KEY, session);
  return session;
}

/**
 * Makes an existing session, handed over by a redeemed OAuth popup ticket, this browser's session under the same id,
 * so an OAuth state started here is bound to the SHA-256 of the session that asked for the ticket. Keeping the id is
 * not a fixation: the data was sealed by this service, the ticket is single use, lives 60 seconds, is only issued to a
 * same-origin request already holding exactly this session and is only redeemed by a same-origin navigation, so its
 * bearer could already act as this session and no other page can plant a session through it. A browser that already
 * holds this very session (a shared cookie jar) keeps its own copy, which may be newer than the ticket's.
 */
export function adoptSession(request: FastifyRequest, data: SessionData): SessionData {
  const current = readSession(request);
  if (current?.sid === data.sid) return current;
  request.session.regenerate();
  request.session.set(SESSION_KEY, data);
  return data;
}

export function updateSession(request: FastifyRequest, session: SessionData): void {
  request.session.set(SESSION_KEY, session);
}

export function sessionBindingHash(session: Pick<SessionData, 'sid'>): string {
  return sha256Hex(session.sid);
}

declare module '@fastify/secure-session' {
  interface SessionData {
    data: unknown;
  }
}
