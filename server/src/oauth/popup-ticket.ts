import { isBase64UrlToken } from '@exb/shared/base64url-token.js';
import { AUTHORIZATION_STARTS, POPUP_TICKET_TTL_SECONDS, type AuthorizationStart } from '@exb/shared/oauth-popup-ticket.js';
import { z } from 'zod';
import { ErrorCodes, errorStatus } from '@exb/shared/error-codes.js';
import type { OneTimeStore } from '../security/one-time-store.js';
import { sessionDataSchema, type SessionData } from '../security/session.js';
import { PRINCIPAL_REQUIRED, START_ENDPOINTS, startPrincipal, type StartRefusal } from './start.js';

/**
 * OAuth popup tickets: how the tool's session reaches the authorization popup.
 *
 * The tool runs in the LMS's iframe, a third-party context, so its session cookie is `Partitioned`: the browser keeps
 * it in a jar keyed by the embedding LMS site. The LMS authorization has to run in a top-level window (the LMS will not
 * show its login and approval pages in a frame), and a top-level window on the tool's origin uses the unpartitioned
 * jar, where that cookie is not. Without help the popup's start answers 401 and its callback finds no principal.
 *
 * So the tool window first asks for a ticket (`POST /api/oauth2/popup-ticket`, same-origin only, with the same role
 * rule as the start it names) and opens the popup at the start with `?ticket=`. The ticket is a 43-character one-time
 * token whose sealed payload is the current session, id included, and the start it is for. The start consumes it
 * atomically and writes that session into the popup's own cookie without minting a new id, so the OAuth state stays
 * bound to the SHA-256 of the tool window's session id and the callback, in the popup, verifies against the same
 * session. What keeps this safe: only a same-origin request that already holds the session can get a ticket; a
 * ticket is used once, within 60 seconds, by a same-origin navigation to the one start it names; it is never logged
 * (request logs keep query keys only, and the start answers with `referrer-policy: no-referrer`).
 */

const STORE_PURPOSE = 'oauth-popup-ticket';

export const popupTicketRequestSchema = z.strictObject({ start: z.enum(AUTHORIZATION_STARTS) });

const ticketPayloadSchema = z.object({ start: z.enum(AUTHORIZATION_STARTS), session: sessionDataSchema });

export interface IssuedPopupTicket {
  ok: true;
  ticket: string;
  expiresInSeconds: number;
}

export class PopupTicketStore {
  constructor(
    private readonly store: OneTimeStore,
    private readonly ttlSeconds = POPUP_TICKET_TTL_SECONDS,
  ) {}

  /**
   * `POST /api/oauth2/popup-ticket` after the Fetch Metadata guard: a principal (401), a valid body (400) and the role
   * rule of the named start (403), then a ticket carrying the session.
   */
  async issue(session: SessionData | null, rawBody: unknown): Promise<IssuedPopupTicket | StartRefusal> {
    if (!session) return PRINCIPAL_REQUIRED;
    const body = popupTicketRequestSchema.safeParse(rawBody ?? null);
    if (!body.success) {
      return { ok: false, status: errorStatus(ErrorCodes.INVALID_REQUEST), code: ErrorCodes.INVALID_REQUEST, message: 'Invalid request: expected a JSON object naming the authorization start.' };
    }
    const { start } = body.data;
    const access = startPrincipal(START_ENDPOINTS[start], session);
    if (!access.ok) return access;
    const issued = await this.store.issue(STORE_PURPOSE, ticketPayloadSchema.parse({ start, session: access.session }), this.ttlSeconds);
    return { ok: true, ticket: issued.token, expiresInSeconds: this.ttlSeconds };
  }

  /**
   * Consumes a ticket for `start`: of any number of parallel uses exactly one gets the session. Malformed, unknown,
   * expired, used or issued for another start (which spends it) all give `null`.
   */
  async redeem(start: AuthorizationStart, ticket: unknown): Promise<SessionData | null> {
    if (!isBase64UrlToken(ticket)) return null;
    const payload = ticketPayloadSchema.safeParse(await this.store.consume<unknown>(STORE_PURPOSE, ticket));
    if (!payload.success || payload.data.start !== start) return null;
    return payload.data.session;
  }
}
