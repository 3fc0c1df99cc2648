import { ADMIN_AND_APPLICATION_SCOPES, APPLICATION_SCOPES, EXAM_DAY_SCOPES } from '@exb/shared/oauth-scopes.js';
import { compilePath } from './paths.js';

/** The scope sets of the service's developer key (Document 1); the administrator set includes the application scopes. */
export { APPLICATION_SCOPES };
export const ADMIN_SCOPES = ADMIN_AND_APPLICATION_SCOPES;

/**
 * What the development LMS's developer key holds unless a test says otherwise: every scope of Document 1 and the
 * exam-day board's read scopes, which the service asks for only when `LMS_OAUTH_EXAM_DAY_SCOPES` is on.
 */
export const DEVELOPER_KEY_SCOPES: readonly string[] = [...ADMIN_AND_APPLICATION_SCOPES, ...Object.values(EXAM_DAY_SCOPES)];

export interface UrlScope {
  method: string;
  pattern: string;
}

export function parseScope(scope: string): UrlScope | null {
  const match = /^url:(GET|POST|PUT|PATCH|DELETE|HEAD)\|(\/\S*)$/.exec(scope);
  return match ? { method: match[1]!, pattern: match[2]! } : null;
}

/** A request is allowed when some granted scope names its method and its pattern matches the path. */
export function scopesAllow(scopes: readonly string[], method: string, pathname: string): boolean {
  return scopes.some((scope) => {
    const parsed = parseScope(scope);
    return parsed !== null && parsed.method === method.toUpperCase() && compilePath(parsed.pattern).match(pathname) !== null;
  });
}
