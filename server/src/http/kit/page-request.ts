import type { FastifyRequest } from 'fastify';
import { TRPC_PREFIX } from '@exb/shared/service-paths.js';

/** The service's machine interfaces: JSON answers only, whatever the client accepts. */
export function isApiPath(url: string): boolean {
  const path = url.split('?', 1)[0]!;
  return path === '/api' || path.startsWith('/api/') || path === TRPC_PREFIX || path.startsWith(`${TRPC_PREFIX}/`);
}

/**
 * A browser navigating to a page, which is answered with a page in the tool's look; API calls, downloads and scripts
 * get the JSON body.
 */
export function wantsPage(request: FastifyRequest): boolean {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  if (isApiPath(request.url)) return false;
  return /\btext\/html\b/.test(String(request.headers.accept ?? ''));
}
