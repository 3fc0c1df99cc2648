import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVELOPMENT_LTI_CLIENT_ID, DEVELOPMENT_LTI_DEPLOYMENT_ID, DEVELOPMENT_LTI_ISSUER } from '../../src/config/app-config.js';
import { sessionCookieOptions } from '../../src/security/session-cookie.js';
import { createTestApp, type TestApp } from '../support/app.js';

describe('cookie attributes', () => {
  it('are HttpOnly, Secure, SameSite=None and Partitioned', () => {
    expect(sessionCookieOptions()).toEqual({ path: '/', httpOnly: true, secure: true, sameSite: 'none', partitioned: true });
    expect(sessionCookieOptions(600)).toMatchObject({ maxAge: 600, secure: true, sameSite: 'none' });
  });

  // A local http origin is cross-site to an https LMS on the same host, so it gets the same attributes as any other.
  describe.each(['http://localhost:3000', 'http://127.0.0.1:3000'])('on the local http origin %s', (baseUrl) => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp({ env: { BASE_URL: baseUrl } });
    });
    afterAll(() => t.close());

    it('the login transaction cookie is Secure, SameSite=None and Partitioned', async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: '/lti/login',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({
          iss: DEVELOPMENT_LTI_ISSUER,
          login_hint: 'hint',
          client_id: DEVELOPMENT_LTI_CLIENT_ID,
          lti_deployment_id: DEVELOPMENT_LTI_DEPLOYMENT_ID,
          target_link_uri: `${baseUrl}/lti/launch`,
        }).toString(),
      });
      expect(response.statusCode).toBe(302);
      const attributes = String(response.headers['set-cookie']).split(';').map((part) => part.trim());
      expect(attributes[0]).toMatch(/^exb_lti_tx_/);
      expect(attributes).toEqual(expect.arrayContaining(['HttpOnly', 'Secure', 'SameSite=None', 'Partitioned', 'Path=/']));
      expect(attributes).not.toContain('SameSite=Lax');
    });
  });
});
