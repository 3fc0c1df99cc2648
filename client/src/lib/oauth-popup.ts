import { acceptsOAuthCompletion } from '@exb/shared/oauth-completion.js';

/**
 * Opens an LMS authorization start (a same-origin `/api/...authorize` path) in a popup and calls `onCompleted` when
 * that popup's completion page signals success. Only a message from this origin and from this very popup counts.
 * Returns `false` when the browser blocked the popup, so the caller can let the link open normally instead.
 */
export function openAuthorizationPopup(startPath: string, onCompleted: () => void): boolean {
  const url = new URL(startPath, window.location.href);
  if (url.origin !== window.location.origin) return false;
  const popup = window.open(url.href, 'exb-lms-authorization', 'popup,width=720,height=760');
  if (!popup) return false;
  const listener = (event: MessageEvent) => {
    if (!acceptsOAuthCompletion(event, { origin: window.location.origin, popup })) return;
    window.removeEventListener('message', listener);
    onCompleted();
  };
  window.addEventListener('message', listener);
  return true;
}

/** The usual completion: reload the tool page so it reads the new authorization state from the server. */
export function reloadAfterAuthorization(): void {
  window.location.reload();
}
