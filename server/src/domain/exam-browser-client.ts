import type { IncomingHttpHeaders } from 'node:http';

const USER_AGENT_TOKEN = /(?:^|\s)SEB\/\d/;

/**
 * Whether a request comes from the exam browser: its user agent carries `SEB/<version>`, or it sends the per-URL key
 * headers. Both can be forged, so this only chooses which page to show; the access code is released solely against the
 * configuration-key proof.
 */
export function isExamBrowserRequest(headers: IncomingHttpHeaders): boolean {
  const userAgent = headers['user-agent'];
  if (typeof userAgent === 'string' && USER_AGENT_TOKEN.test(userAgent)) return true;
  return (
    typeof headers['x-safeexambrowser-configkeyhash'] === 'string' ||
    typeof headers['x-safeexambrowser-requesthash'] === 'string'
  );
}
