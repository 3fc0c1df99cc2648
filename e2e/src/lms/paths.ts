/**
 * Route patterns in the LMS's own notation (`/api/v1/courses/:course_id/quizzes/:id`). The same matcher serves
 * routing and OAuth scope checks, because a scope (`url:GET|/api/v1/courses/:course_id/quizzes`) is a route pattern:
 * each `:name` stands for one path segment, and API routes accept an optional `.json` format suffix.
 */
export interface CompiledPath {
  readonly pattern: string;
  match(pathname: string): Record<string, string> | null;
}

const cache = new Map<string, CompiledPath>();

export function compilePath(pattern: string): CompiledPath {
  const cached = cache.get(pattern);
  if (cached) return cached;
  const names: string[] = [];
  const allowFormat = pattern.startsWith('/api/');
  const source = pattern
    .split('/')
    .map((segment) => {
      if (segment.startsWith(':')) {
        names.push(segment.slice(1));
        return allowFormat ? '([^/.]+)' : '([^/]+)';
      }
      return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  const regex = new RegExp(`^${source}${allowFormat ? '(?:\\.json)?' : ''}/?$`);
  const compiled: CompiledPath = {
    pattern,
    match(pathname) {
      const result = regex.exec(pathname);
      if (!result) return null;
      const params: Record<string, string> = {};
      names.forEach((name, index) => {
        params[name] = decodeURIComponent(result[index + 1]!);
      });
      return params;
    },
  };
  cache.set(pattern, compiled);
  return compiled;
}
