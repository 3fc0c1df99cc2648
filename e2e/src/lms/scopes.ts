import { compilePath } from './paths.js';

/** The scope sets of the service's developer key (Document 1): application scopes, and administrator additions. */
export const APPLICATION_SCOPES = [
  'url:GET|/api/v1/courses',
  'url:GET|/api/v1/courses/:course_id/quizzes',
  'url:GET|/api/v1/courses/:course_id/assignments',
  'url:GET|/api/quiz/v1/courses/:course_id/quizzes/:assignment_id',
  'url:PUT|/api/v1/courses/:course_id/quizzes/:id',
  'url:PATCH|/api/quiz/v1/courses/:course_id/quizzes/:assignment_id',
  'url:GET|/api/v1/login/session_token',
] as const;

export const ADMIN_SCOPES = [
  ...APPLICATION_SCOPES,
  'url:GET|/api/v1/accounts/:id',
  'url:GET|/api/v1/accounts/:account_id/permissions',
  'url:GET|/api/v1/accounts/:account_id/courses',
  'url:GET|/api/v1/accounts/:account_id/terms',
  'url:GET|/api/v1/courses/:id',
  'url:GET|/api/v1/courses/:course_id/quizzes/:id',
] as const;

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
