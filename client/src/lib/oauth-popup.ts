import { isBase64UrlToken } from '@exb/shared/base64url-token.js';
import { acceptsOAuthCompletion } from '@exb/shared/oauth-completion.js';
import { authorizationStartOf, POPUP_TICKET_PARAM, POPUP_TICKET_PATH, type AuthorizationStart } from '@exb/shared/oauth-popup-ticket.js';
import { i18next } from '../i18n/i18n';
import { errorMessage } from './error-message';
import { hasSessionToken, sessionFetch, withSessionToken } from './session-token';

const POPUP_NAME = 'exb-lms-authorization';
const POPUP_FEATURES = 'popup,width=720,height=760';
const TICKET_TIMEOUT_MS = 15_000;
const CLOSED_POLL_MS = 1_000;

export interface AuthorizationPopupOptions {
  /** Called with a sentence for the user when the popup could not be sent to the start; the popup is closed by then. */
  onFailed?: (message: string) => void;
}

/** The attempt in progress. Every attempt uses the same named window, so a new one retires the previous one. */
let current: { stop(): void } | undefined;

/**
 * Opens an LMS authorization start (a same-origin `/api/...authorize` path) in a popup and calls `onCompleted` when
 * that popup's completion page signals success. Only a message from this origin and from this very popup counts.
 *
 * Inside the LMS's frame the tool's session cookie is partitioned and a top-level popup cannot see it, so the popup
 * does not just open the start: this window first obtains a one-time ticket for it (same-origin `fetch`, carrying the
 * frame's cookie) and sends the popup to the start with `?ticket=`, which hands the session over. The popup is opened
 * blank right away, while the click still counts as a user gesture for popup blockers, and only then navigated.
 *
 * Returns `false` when the browser blocked the popup or the path is not an authorization start; the caller tells the
 * user. Opening the start any other way (a link, a new tab) would run without the tool's session.
 */
export function openAuthorizationPopup(startPath: string, onCompleted: () => void, options: AuthorizationPopupOptions = {}): boolean {
  const url = new URL(startPath, window.location.href);
  const start = url.origin === window.location.origin ? authorizationStartOf(url.pathname) : null;
  if (start === null) return false;
  const popup = window.open('about:blank', POPUP_NAME, POPUP_FEATURES);
  if (!popup) return false;
  current?.stop();
  showPending(popup);

  let stopped = false;
  const listener = (event: MessageEvent) => {
    if (!acceptsOAuthCompletion(event, { origin: window.location.origin, popup })) return;
    attempt.stop();
    onCompleted();
  };
  const attempt = {
    stop() {
      if (stopped) return;
      stopped = true;
      window.removeEventListener('message', listener);
      window.clearInterval(watch);
      if (current === attempt) current = undefined;
    },
  };
  // A popup the user closes never signals; without this its listener would outlive it.
  const watch = window.setInterval(() => {
    if (popup.closed) attempt.stop();
  }, CLOSED_POLL_MS);
  current = attempt;
  window.addEventListener('message', listener);

  requestTicket(start).then(
    (ticket) => {
      if (stopped || popup.closed) return;
      url.searchParams.set(POPUP_TICKET_PARAM, ticket);
      // `replace`: the blank page stays out of the popup's history, so "back" cannot land on it.
      popup.location.replace(url.href);
    },
    (error: unknown) => {
      // A retired attempt leaves the window to the attempt that now uses it.
      if (stopped) return;
      attempt.stop();
      popup.close();
      options.onFailed?.(error instanceof TicketError ? error.message : i18next.t('authorize.notStarted'));
    },
  );
  return true;
}

/**
 * The usual completion: reload the tool page so it reads the new authorization state from the server. A page whose
 * session is its token (no cookie in the LMS's frame) opens its address again with the token.
 */
export function reloadAfterAuthorization(): void {
  if (hasSessionToken()) window.location.replace(withSessionToken(window.location.pathname));
  else window.location.reload();
}

class TicketError extends Error {}

async function requestTicket(start: AuthorizationStart): Promise<string> {
  let response: Response;
  try {
    response = await sessionFetch(POPUP_TICKET_PATH, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ start }),
      cache: 'no-store',
      signal: AbortSignal.timeout(TICKET_TIMEOUT_MS),
    });
  } catch {
    throw new TicketError(i18next.t('authorize.unreachable'));
  }
  const body = (await response.json().catch(() => null)) as { ticket?: unknown; error_code?: unknown } | null;
  const ticket = body?.ticket;
  if (response.ok && isBase64UrlToken(ticket)) return ticket;
  // The answer's `message` is the API's English; the refusal is told by its code, in the page's language.
  throw new TicketError(errorMessage(body?.error_code) ?? i18next.t('authorize.notStarted'));
}

/** The blank popup shares this origin until it is navigated; a line of text beats an empty window meanwhile. */
function showPending(popup: Window): void {
  try {
    popup.document.title = i18next.t('authorize.pendingTitle');
    popup.document.documentElement.lang = i18next.language;
    popup.document.body.textContent = i18next.t('authorize.pendingText');
  } catch {
    // A re-used window still showing another origin cannot be written to; it is navigated all the same.
  }
}
