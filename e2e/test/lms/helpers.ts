import { setupServer, type SetupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { createMockLms, lmsUnhandledRequestPolicy, type MockLms, type MockLmsOptions } from '../../src/lms/index.js';

export const LMS_URL = 'http://127.0.0.1:3001';
export const TOOL = {
  baseUrl: 'http://127.0.0.1:3000',
  clientId: '10000000000001',
  deploymentId: '1:8865aa05b4b79b64a91a86042e43af5ea8ae79eb',
  oauthClientId: '10000000000002',
  oauthClientSecret: 'development-oauth-secret',
  themeJavaScriptUrl: 'http://127.0.0.1:3000/js/lms-exb-theme-loader.js',
};

export function testLms(options: Partial<MockLmsOptions> = {}): MockLms {
  return createMockLms({ baseUrl: LMS_URL, tool: TOOL, ...options });
}

/** One LMS per test file, answering in-process; state, faults and calls are reset after every test. */
export function useInProcessLms(options: Partial<MockLmsOptions> = {}): { lms: MockLms; server: SetupServer } {
  const lms = testLms(options);
  const server = setupServer(...lms.handlers);
  beforeAll(() => server.listen({ onUnhandledRequest: lmsUnhandledRequestPolicy(lms) }));
  afterEach(() => {
    lms.reset();
    server.resetHandlers();
  });
  afterAll(() => server.close());
  return { lms, server };
}

export function bearer(token: string): HeadersInit {
  return { authorization: `Bearer ${token}` };
}

export async function api(
  lms: MockLms,
  token: string | undefined,
  path: string,
  init: { method?: string; json?: unknown; form?: Record<string, string>; headers?: Record<string, string> } = {},
): Promise<Response> {
  const headers: Record<string, string> = { ...(token ? { authorization: `Bearer ${token}` } : {}), ...init.headers };
  let body: string | undefined;
  if (init.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(init.json);
  } else if (init.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(init.form).toString();
  }
  return fetch(`${lms.baseUrl}${path}`, { method: init.method ?? 'GET', headers, ...(body !== undefined ? { body } : {}), redirect: 'manual' });
}

/** An access token for a demo person with the given scopes (default: administrator plus application scopes). */
export function tokenFor(lms: MockLms, person: string, scopes?: readonly string[]): string {
  return lms.oauth.issueToken({ user: person, ...(scopes ? { scopes } : { scopes: lms.tool.oauthScopes }) }).record.accessToken;
}
