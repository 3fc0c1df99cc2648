import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMockLms, parseLinkHeader, type MockLms, type RunningLmsServer } from '../../src/lms/index.js';
import { TOOL } from './helpers.js';

let lms: MockLms;
let server: RunningLmsServer;

beforeAll(async () => {
  lms = createMockLms({ baseUrl: 'http://127.0.0.1:0', tool: TOOL });
  server = await lms.startHttpServer({ port: 0 });
});
afterAll(async () => {
  await server?.close();
});

function rawGet(path: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: server.port, path, headers: { host } }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the LMS over HTTP', () => {
  it('listens on a free port and moves its base URL there', () => {
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
    expect(lms.baseUrl).toBe(server.url);
  });

  it('serves the same routes, matched on the path whatever host the client used', async () => {
    const jwks = await rawGet('/api/lti/security/jwks', 'lms.example.test:8443');
    expect(jwks.status).toBe(200);
    expect(JSON.parse(jwks.body).keys).toHaveLength(1);
  });

  it('answers API calls with links on its base URL', async () => {
    lms.reset();
    const token = lms.oauth.issueToken({ user: 'instructor' }).record.accessToken;
    const response = await fetch(`${server.url}/api/v1/courses?per_page=1`, { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
    expect(parseLinkHeader(response.headers.get('link')).next).toBe(`${server.url}/api/v1/courses?page=2&per_page=1`);
    expect(lms.calls.last('GET /api/v1/courses')).toMatchObject({ userId: 2, status: 200 });
  });

  it('reads form bodies, as the token endpoint and pages need', async () => {
    const { code } = lms.oauth.approve({ user: 'student1' });
    const response = await fetch(`${server.url}/login/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        client_id: TOOL.oauthClientId,
        client_secret: TOOL.oauthClientSecret,
        redirect_uri: `${TOOL.baseUrl}/api/oauth2callback`,
        code,
      }),
    });
    expect(((await response.json()) as { user: { id: number } }).user.id).toBe(3);
  });

  it('drops the connection for a network error and holds it for a timeout', async () => {
    const token = lms.oauth.issueToken({ user: 'instructor' }).record.accessToken;
    lms.faults.next('GET /api/v1/courses', { kind: 'network-error' });
    await expect(fetch(`${server.url}/api/v1/courses`, { headers: { authorization: `Bearer ${token}` } })).rejects.toThrow();
    lms.faults.timeout('GET /api/v1/courses');
    await expect(
      fetch(`${server.url}/api/v1/courses`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(200) }),
    ).rejects.toThrow();
    expect((await fetch(`${server.url}/api/v1/courses`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
  });

  it('answers unknown paths with the LMS 404 and records them', async () => {
    const response = await fetch(`${server.url}/api/v1/nothing/here`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ errors: [{ message: 'The specified resource does not exist.' }] });
    expect(lms.calls.last('UNMATCHED GET')).toMatchObject({ path: '/api/v1/nothing/here' });
  });
});
