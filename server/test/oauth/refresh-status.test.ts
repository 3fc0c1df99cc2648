import { APPLICATION_SCOPES } from '@exb/shared/oauth-scopes.js';
import { delay, http } from 'msw';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LmsAuthorizationRequiredError } from '../../src/lms/errors.js';
import { admin, instructor, student } from '../support/sessions.js';
import { createOAuthTestbed, LMS_URL, storeGrant, type OAuthTestbed } from '../support/oauth-testbed.js';
import { holderFor } from '../support/sessions.js';

const TOKEN_ROUTE = 'POST /login/oauth2/token';

describe('token refresh and GET /api/oauth2status', () => {
  let bed: OAuthTestbed;

  beforeAll(async () => {
    bed = await createOAuthTestbed();
  });
  afterAll(() => bed?.close());
  beforeEach(async () => {
    bed.lms.reset();
    bed.msw.resetHandlers();
    await bed.t.db.orm.em.getConnection().execute('delete from lms_oauth_token', [], 'run');
    await bed.t.db.orm.em.getConnection().execute('delete from lease', [], 'run');
  });

  const sql = (query: string, params: unknown[] = []) => bed.t.db.orm.em.getConnection().execute(query, params, 'run');
  const expireStored = () => sql("update lms_oauth_token set access_token_expires_at = now() - interval '1 minute'");
  const status = (cookie?: string, query = '', app = bed.t.app) =>
    app.inject({ method: 'GET', url: `/api/oauth2status${query}`, headers: cookie ? { cookie } : {} });
  /** The teacher view's connection check (`instructor.authorization.ensure`), as the typed client sends it. */
  const ensure = (cookie?: string, app = bed.t.app) =>
    app.inject({ method: 'GET', url: '/trpc/instructor.authorization.ensure', headers: cookie ? { cookie } : {} });
  /** Slows the token endpoint down so every parallel request arrives while the first refresh is still running. */
  const slowTokenEndpoint = (ms: number) =>
    bed.msw.use(
      http.post(`${LMS_URL}/login/oauth2/token`, async () => {
        await delay(ms);
        // Returning nothing hands the request on to the mocked LMS's own handler.
      }),
    );

  describe('refresh', () => {
    it('refreshes an expired token once for many parallel requests on two instances', async () => {
      const issued = await storeGrant(bed, 2, APPLICATION_SCOPES);
      bed.lms.oauth.expire(issued.response.access_token);
      await expireStored();
      slowTokenEndpoint(300);
      const { cookie } = bed.session(instructor());

      const first = bed.services();
      const second = bed.services();
      const results = await Promise.all([
        ...Array.from({ length: 10 }, (_, index) => ensure(cookie, index % 2 === 0 ? bed.t.app : bed.second)),
        ...Array.from({ length: 10 }, (_, index) => (index % 2 === 0 ? first : second).lms.forPrincipal(holderFor('2')).listCourses()),
      ]);

      expect(bed.lms.calls.count(TOKEN_ROUTE)).toBe(1);
      const refresh = bed.lms.calls.last(TOKEN_ROUTE)!;
      expect(refresh.body).toMatchObject({ grant_type: 'refresh_token' });
      expect(refresh.status).toBe(200);
      for (const result of results.slice(0, 10)) expect((result as { json(): unknown }).json()).toEqual({ result: { data: { authorized: true } } });
      for (const courses of results.slice(10)) expect((courses as unknown[]).length).toBeGreaterThan(0);
      // Every API call went out with the refreshed token.
      expect(bed.lms.calls.filter('GET /api/v1/courses').every((call) => call.status === 200)).toBe(true);

      // The refreshed token is stored encrypted and the refresh token kept (the LMS sends none on refresh).
      const stored = await first.oauth.tokens.find('2');
      expect(stored).toMatchObject({ refreshToken: issued.response.refresh_token, reauthorizationRequired: false });
      const record = [...bed.lms.state.tokens.values()].find((token) => token.userId === 2)!;
      expect((stored as { accessToken: string }).accessToken).toBe(record.accessToken);
      expect(await bed.t.db.orm.em.getConnection().execute('select * from lease')).toHaveLength(0);
    });

    it('refreshes once when the LMS rejects a token it expired early, for parallel calls', async () => {
      const issued = await storeGrant(bed, 2, APPLICATION_SCOPES);
      bed.lms.oauth.expire(issued.response.access_token);
      slowTokenEndpoint(200);
      const services = [bed.services(), bed.services()];
      const lists = await Promise.all(Array.from({ length: 8 }, (_, index) => services[index % 2]!.lms.forPrincipal(holderFor('2')).listQuizzes('101')));
      expect(lists.every((quizzes) => quizzes.length > 0)).toBe(true);
      expect(bed.lms.calls.count(TOKEN_ROUTE)).toBe(1);
    });

    it('a revoked grant: one refresh attempt, every parallel request gets "authorization required", the user is marked', async () => {
      const issued = await storeGrant(bed, 2, APPLICATION_SCOPES);
      bed.lms.oauth.revoke(issued.response.access_token);
      await expireStored();
      slowTokenEndpoint(200);
      const services = [bed.services(), bed.services()];
      const outcomes = await Promise.allSettled(Array.from({ length: 8 }, (_, index) => services[index % 2]!.lms.forPrincipal(holderFor('2')).listCourses()));
      for (const outcome of outcomes) {
        expect(outcome.status).toBe('rejected');
        expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(LmsAuthorizationRequiredError);
      }
      expect(bed.lms.calls.count(TOKEN_ROUTE)).toBe(1);
      expect(bed.lms.calls.last(TOKEN_ROUTE)!.status).toBe(400);
      expect((await services[0]!.oauth.tokens.findMetadata('2'))!.reauthorizationRequired).toBe(true);
    });

    it('a grant without a refresh token needs reauthorization once its access token expires', async () => {
      await storeGrant(bed, 2, APPLICATION_SCOPES);
      await sql('update lms_oauth_token set refresh_token_ciphertext = null');
      await expireStored();
      const error = await bed.services().lms.forPrincipal(holderFor('2')).listCourses().catch((caught: unknown) => caught);
      expect((error as LmsAuthorizationRequiredError).reason).toBe('reauthorization-required');
      expect(bed.lms.calls.count()).toBe(0);
    });

    it('an unreachable token endpoint does not mark the grant', async () => {
      await storeGrant(bed, 2, APPLICATION_SCOPES);
      await expireStored();
      bed.lms.faults.next(TOKEN_ROUTE, { kind: 'network-error' });
      await expect(bed.services().lms.forPrincipal(holderFor('2')).listCourses()).rejects.not.toBeInstanceOf(LmsAuthorizationRequiredError);
      expect((await bed.services().oauth.tokens.findMetadata('2'))!.reauthorizationRequired).toBe(false);
      expect((await bed.services().lms.forPrincipal(holderFor('2')).listCourses()).length).toBeGreaterThan(0);
    });

    it('a new authorization made during a failed refresh stays usable', async () => {
      const services = bed.services();
      await storeGrant(bed, 2, APPLICATION_SCOPES);
      const stale = (await services.oauth.tokens.findMetadata('2'))!;
      await storeGrant(bed, 2, APPLICATION_SCOPES);
      await services.oauth.tokens.markReauthorizationRequired(stale);
      expect((await services.lms.forPrincipal(holderFor('2')).listCourses()).length).toBeGreaterThan(0);
    });
  });

  describe('GET /api/oauth2status', () => {
    const authorized = async (response: Awaited<ReturnType<typeof status>>) => {
      expect(response.statusCode).toBe(200);
      expect(response.headers['cache-control']).toBe('no-store');
      return (response.json() as { authorized: boolean }).authorized;
    };

    it('true for a stored, unexpired token; user_id may repeat the principal\'s', async () => {
      await storeGrant(bed, 2, APPLICATION_SCOPES);
      const { cookie } = bed.session(instructor());
      expect(await authorized(await status(cookie))).toBe(true);
      expect(await authorized(await status(cookie, '?user_id=2'))).toBe(true);
      expect(bed.lms.calls.count()).toBe(0);
    });

    it('false without a principal, for students and administrators, and for a user_id mismatch', async () => {
      await storeGrant(bed, 2, APPLICATION_SCOPES);
      await storeGrant(bed, 3, APPLICATION_SCOPES);
      await storeGrant(bed, 1, APPLICATION_SCOPES);
      expect(await authorized(await status())).toBe(false);
      expect(await authorized(await status(bed.session(student()).cookie))).toBe(false);
      expect(await authorized(await status(bed.session(admin()).cookie))).toBe(false);
      const { cookie } = bed.session(instructor());
      expect(await authorized(await status(cookie, '?user_id=3'))).toBe(false);
      expect(await authorized(await status(cookie, '?user_id=2&user_id=2'))).toBe(false);
    });

    it('false without a stored token', async () => {
      expect(await authorized(await status(bed.session(instructor()).cookie))).toBe(false);
    });

    it('false for an expired token, without any LMS call, even when its refresh would work', async () => {
      await storeGrant(bed, 2, APPLICATION_SCOPES);
      await expireStored();
      expect(await authorized(await status(bed.session(instructor()).cookie))).toBe(false);
      expect(bed.lms.calls.count()).toBe(0);
      // Nothing was marked: the grant is still good for the refresh the teacher view asks for.
      expect((await bed.services().oauth.tokens.findMetadata('2'))!.reauthorizationRequired).toBe(false);
    });

    it('true again once a refresh stored a new token', async () => {
      await storeGrant(bed, 2, APPLICATION_SCOPES);
      await expireStored();
      const { cookie } = bed.session(instructor());
      expect((await ensure(cookie)).json()).toEqual({ result: { data: { authorized: true } } });
      expect(await authorized(await status(cookie))).toBe(true);
      expect(bed.lms.calls.count(TOKEN_ROUTE)).toBe(1);
    });

    it('false for a grant marked for reauthorization and for a record that does not decrypt (never an error status)', async () => {
      await storeGrant(bed, 2, APPLICATION_SCOPES);
      await bed.services().oauth.tokens.markReauthorizationRequired((await bed.services().oauth.tokens.findMetadata('2'))!);
      expect(await authorized(await status(bed.session(instructor()).cookie))).toBe(false);

      await storeGrant(bed, 2, APPLICATION_SCOPES);
      await sql("update lms_oauth_token set access_token_ciphertext = refresh_token_ciphertext");
      expect(await authorized(await status(bed.session(instructor()).cookie))).toBe(false);
      expect(bed.lms.calls.count()).toBe(0);
    });
  });

  describe('instructor.authorization.ensure', () => {
    const answer = async (response: Awaited<ReturnType<typeof ensure>>) => {
      expect(response.statusCode).toBe(200);
      return (response.json() as { result: { data: unknown } }).result.data;
    };

    it('answers from a stored, unexpired token without calling the LMS', async () => {
      await storeGrant(bed, 2, APPLICATION_SCOPES);
      expect(await answer(await ensure(bed.session(instructor()).cookie))).toEqual({ authorized: true });
      expect(bed.lms.calls.count()).toBe(0);
    });

    it('refreshes an expired token whose refresh token works: no authorization needed', async () => {
      const issued = await storeGrant(bed, 2, APPLICATION_SCOPES);
      bed.lms.oauth.expire(issued.response.access_token);
      await expireStored();
      expect(await answer(await ensure(bed.session(instructor()).cookie))).toEqual({ authorized: true });
      expect(bed.lms.calls.last(TOKEN_ROUTE)).toMatchObject({ status: 200, body: { grant_type: 'refresh_token' } });
    });

    it('asks to authorize again, at the re-authorization start, when the LMS refuses the refresh', async () => {
      const issued = await storeGrant(bed, 2, APPLICATION_SCOPES);
      bed.lms.oauth.revoke(issued.response.access_token);
      await expireStored();
      expect(await answer(await ensure(bed.session(instructor()).cookie))).toEqual({
        authorized: false,
        authUrl: '/api/oauth2reauthorize?course_id=101&user_id=2',
      });
      expect(bed.lms.calls.last(TOKEN_ROUTE)!.status).toBe(400);
    });

    it('asks to authorize, without a re-authorization, when there never was a grant', async () => {
      expect(await answer(await ensure(bed.session(instructor()).cookie))).toEqual({ authorized: false });
      expect(bed.lms.calls.count()).toBe(0);
    });

    it('reports an unreachable LMS as an error, not as a reason to authorize again', async () => {
      await storeGrant(bed, 2, APPLICATION_SCOPES);
      await expireStored();
      bed.lms.faults.next(TOKEN_ROUTE, { status: 503 });
      const response = await ensure(bed.session(instructor()).cookie);
      expect(response.statusCode).toBeGreaterThanOrEqual(500);
      expect(response.body).not.toMatch(/authorized/);
      expect((await bed.services().oauth.tokens.findMetadata('2'))!.reauthorizationRequired).toBe(false);
    });

    it('is for instructors only', async () => {
      expect((await ensure()).statusCode).toBe(401);
      expect((await ensure(bed.session(student()).cookie)).statusCode).toBe(403);
    });
  });
});
