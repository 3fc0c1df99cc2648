import { isContentId } from '@exb/shared/content-id.js';
import { EXB_LAUNCH_ROUTE, LTI_LAUNCH_ROUTE, servicePath } from '@exb/shared/service-paths.js';

export const DEFAULT_REDIRECT_PATH = LTI_LAUNCH_ROUTE.path;
const MAX_REDIRECT_LENGTH = 2048;

/**
 * A redirect target that can only lead back into the service: a path (optionally with a query) on the service's own
 * origin. Scheme-relative (`//host`), backslash tricks, control characters, encoded dot segments and anything that
 * resolves elsewhere give `null`; the caller substitutes the default. The input is judged before and the result
 * after normalization: dot segments can turn a harmless-looking path into a scheme-relative one (`/.//host`).
 */
export function safeLocalPath(value: unknown, baseUrl: string): string | null {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_REDIRECT_LENGTH) return null;
  if (!value.startsWith('/') || value.startsWith('//') || /[\\\u0000-\u001f\u007f]/.test(value)) return null;
  let url: URL;
  try {
    url = new URL(value, baseUrl);
  } catch {
    return null;
  }
  const base = new URL(baseUrl);
  if (url.origin !== base.origin || url.username || url.password) return null;
  // Encoded dots and slashes are normalised away by URL parsing, so they are judged on the raw path.
  if (/%2e|%2f|%5c/i.test(value.split(/[?#]/, 1)[0]!)) return null;
  const normalized = `${url.pathname}${url.search}`;
  // Sent as a Location, `//host` or `/\host` would leave the origin.
  return /^\/(?![/\\])/.test(normalized) ? normalized : null;
}

/** The instructor and administrator `redirect_url` rule: a safe local path, anything else becomes `/lti/launch`. */
export function redirectUrlOrDefault(value: unknown, baseUrl: string): string {
  return safeLocalPath(value, baseUrl) ?? DEFAULT_REDIRECT_PATH;
}

/**
 * Where a student returns after connecting, derived only from the launch target the signed launch recorded: the
 * exam-browser launch of that content, or the course launch.
 */
export function studentReturnUrl(launchTarget: string): string {
  const match = /^\/exb\/launch\/([^/?#]+)$/.exec(launchTarget);
  if (match) {
    let contentId: string;
    try {
      contentId = decodeURIComponent(match[1]!);
    } catch {
      return `${DEFAULT_REDIRECT_PATH}?connected=1`;
    }
    // Canonical content ids are letters, digits, `_` and `:` only, all valid in a path segment as they are.
    if (isContentId(contentId)) return `${servicePath(EXB_LAUNCH_ROUTE, [contentId])}?connected=1`;
  }
  return `${DEFAULT_REDIRECT_PATH}?connected=1`;
}
