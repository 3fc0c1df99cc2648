/**
 * The message an OAuth completion page posts to the tool window that opened it. The opener acts on it only when it
 * comes from the tool's own origin and from the very popup it opened; the message carries no data worth stealing, so
 * it is a signal to refresh, never a carrier of tokens or identity.
 *
 * No dependencies, so browser bundles can import it.
 */
export const OAUTH_COMPLETION_MESSAGE_TYPE = 'exb:lms-authorization-completed';

export const OAUTH_COMPLETION_VIEWS = ['lms-oauth-connected', 'student-session-connected'] as const;
export type OAuthCompletionView = (typeof OAUTH_COMPLETION_VIEWS)[number];

export interface OAuthCompletionMessage {
  readonly type: typeof OAUTH_COMPLETION_MESSAGE_TYPE;
  readonly view: OAuthCompletionView;
}

export function oauthCompletionMessage(view: OAuthCompletionView): OAuthCompletionMessage {
  return { type: OAUTH_COMPLETION_MESSAGE_TYPE, view };
}

export function isOAuthCompletionMessage(value: unknown): value is OAuthCompletionMessage {
  if (typeof value !== 'object' || value === null) return false;
  const { type, view } = value as { type?: unknown; view?: unknown };
  return type === OAUTH_COMPLETION_MESSAGE_TYPE && (OAUTH_COMPLETION_VIEWS as readonly unknown[]).includes(view);
}

/**
 * The opener's check: the event comes from the opener's own origin, from the popup window it opened, and is the
 * completion message. Anything else (another tab, another site, a frame) is ignored.
 */
export function acceptsOAuthCompletion(
  event: { readonly origin: string; readonly source: unknown; readonly data: unknown },
  expected: { readonly origin: string; readonly popup: unknown },
): boolean {
  return expected.popup != null && event.origin === expected.origin && event.source === expected.popup && isOAuthCompletionMessage(event.data);
}
