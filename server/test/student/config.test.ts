import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPLICATION_SCOPES } from '@exb/shared/oauth-scopes.js';
import { downloadConfiguration, openConfiguration } from '../../../e2e/src/exb-simulator/index.js';
import type { PlistDict } from '../../src/exb/plist.js';
import { hashExamBrowserPassword } from '../../src/exb/hash.js';
import { admin } from '../support/sessions.js';
import {
  COURSE,
  createStudentHarness,
  downloadPathOf,
  EXIT_PASSWORD,
  grantOf,
  instructor,
  LMS,
  QUIZ,
  SAME_ORIGIN,
  SERVICE,
  student,
  type StudentHarness,
} from './harness.js';

let h: StudentHarness;
beforeAll(async () => {
  h = await createStudentHarness();
  await h.enforce(QUIZ);
  await h.authorizeStudent(3);
});
afterAll(() => h.close());

async function mint(contentId: string, principal = student()): Promise<string> {
  const response = await h.grant(principal, contentId);
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { exbLaunchUrl: string }).exbLaunchUrl;
}

function filterExpressions(settings: PlistDict): string[] {
  return (settings.get('URLFilterRules') as PlistDict[]).map((rule) => rule.get('expression') as string);
}

describe('POST /api/exb/config-grant/:courseId/:contentId', () => {
  it('answers the contract body with a sebs:// URL of the .seb download, a handoff URL and 120 seconds, never cached', async () => {
    const response = await h.grant();
    expect(response.statusCode).toBe(200);
    const body = response.json() as Record<string, unknown>;
    expect(body).toEqual({
      success: true,
      // The scheme Safe Exam Browser registers for an https service; the path its browser takes for a configuration.
      exbLaunchUrl: expect.stringMatching(/^sebs:\/\/tool\.example\.test\/exb\/config\/101\/classicquiz_201\.seb\?grant=[A-Za-z0-9_-]{43}$/),
      handoffUrl: expect.stringMatching(/^\/exb\/launch-handoff\?key=[A-Za-z0-9_-]{43}$/),
      expiresInSeconds: 120,
    });
    expect(response.headers['cache-control']).toContain('no-store');
    expect(response.headers.pragma).toBe('no-cache');
  });

  it('requires a principal of the course: none, another course, or an administrator give LTI_PRINCIPAL_REQUIRED', async () => {
    const none = await h.app.inject({ method: 'POST', url: `/api/exb/config-grant/${COURSE}/${QUIZ}`, headers: SAME_ORIGIN, payload: {} });
    expect(none.statusCode).toBe(403);
    expect(none.json()).toMatchObject({ success: false, error_code: 'LTI_PRINCIPAL_REQUIRED' });
    for (const principal of [student({ courseId: '102' }), admin()]) {
      const s = h.session(principal);
      const response = await h.app.inject({
        method: 'POST',
        url: `/api/exb/config-grant/${COURSE}/${QUIZ}`,
        headers: { cookie: s.cookie, ...SAME_ORIGIN },
        payload: { actionToken: h.actionTokens.issue(s.session, 'config-grant') },
      });
      expect(response.statusCode).toBe(403);
      expect(response.json()).toMatchObject({ error_code: 'LTI_PRINCIPAL_REQUIRED' });
    }
  });

  it('refuses cross-site and typed-in requests by Fetch Metadata, before looking at the session', async () => {
    for (const site of ['cross-site', 'same-site', 'none']) {
      const s = h.session(student());
      const response = await h.app.inject({
        method: 'POST',
        url: `/api/exb/config-grant/${COURSE}/${QUIZ}`,
        headers: { cookie: s.cookie, 'sec-fetch-site': site },
        payload: { actionToken: h.actionTokens.issue(s.session, 'config-grant') },
      });
      expect(response.statusCode).toBe(403);
      expect(response.json()).toMatchObject({ error_code: 'CROSS_SITE_REQUEST' });
    }
  });

  it('requires the action token of this session and purpose, unexpired', async () => {
    const s = h.session(student());
    const other = h.session(student({ ltiSubject: 'someone-else' }));
    const cases: unknown[] = [
      undefined,
      '',
      'v1.config-grant.1.x',
      h.actionTokens.issue(other.session, 'config-grant'),
      h.actionTokens.issue(s.session, 'admin-mutation'),
      { token: 'object' },
    ];
    for (const actionToken of cases) {
      const response = await h.grant(student(), QUIZ, actionToken === undefined ? {} : { actionToken });
      expect(response.statusCode).toBe(403);
      expect(response.json()).toMatchObject({ error_code: 'INVALID_ACTION_TOKEN' });
    }
    const token = h.actionTokens.issue(s.session, 'config-grant');
    h.clock.advance(15 * 60);
    try {
      const expired = await h.grant(student(), QUIZ, { actionToken: token });
      expect(expired.statusCode).toBe(403);
      expect(expired.json()).toMatchObject({ error_code: 'INVALID_ACTION_TOKEN' });
    } finally {
      h.clock.advance(-15 * 60);
    }
  });

  it('answers 400 for a body that is not an object', async () => {
    const s = h.session(student());
    const response = await h.app.inject({
      method: 'POST',
      url: `/api/exb/config-grant/${COURSE}/${QUIZ}`,
      headers: { cookie: s.cookie, ...SAME_ORIGIN, 'content-type': 'application/json' },
      payload: '["actionToken"]',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ error_code: 'INVALID_REQUEST' });
  });

  it('answers 404 without an error code when no configuration is available', async () => {
    await h.enforce('classicquiz_811', { enabled: false, exbRequired: false, accessCode: null });
    await h.enforce('classicquiz_812', { exitPasswordOverride: null });
    await h.enforce('classicquiz_813', { accessCode: null });
    for (const contentId of ['classicquiz_810', 'classicquiz_811', 'classicquiz_812', 'classicquiz_813', 'newquiz:102:303', 'quiz_1', '201']) {
      const response = await h.grant(student(), contentId);
      expect(response.statusCode, contentId).toBe(404);
      expect(response.json()).toEqual({ success: false, message: expect.any(String) });
    }
  });

  it('requires a student to hold an LMS grant for the session handoff: LMS_SESSION_AUTHORIZATION_REQUIRED', async () => {
    const sue = student({ lmsUserId: '4' });
    const response = await h.grant(sue);
    expect(response.statusCode).toBe(403);
    expect(response.json()).toMatchObject({ error_code: 'LMS_SESSION_AUTHORIZATION_REQUIRED', authorizeUrl: '/api/student-session-authorize' });
    await h.authorizeStudent(4, APPLICATION_SCOPES.filter((scope) => !scope.includes('session_token')));
    expect((await h.grant(sue)).statusCode).toBe(403);
    await h.authorizeStudent(4);
    expect((await h.grant(sue)).statusCode).toBe(200);
    // The grant proved user 4 for Sue's subject only: a launch naming user 4 under another subject cannot use it.
    expect((await h.grant(student({ lmsUserId: '4', ltiSubject: 'someone-else' }))).json()).toMatchObject({
      error_code: 'LMS_SESSION_AUTHORIZATION_REQUIRED',
    });
    // Instructors get the configuration without a session, so they need no grant for it.
    expect((await h.grant(instructor({ lmsUserId: '6', ltiSubject: 'ta' }))).statusCode).toBe(200);
  });
});

describe('GET and HEAD /exb/config/:courseId/:contentId.exb (and .seb)', () => {
  it('answers the launch URL\'s .seb download as application/seb, with a configuration for this student and quiz', async () => {
    await h.courseDefaults({
      urlRules: [{ match: 'domain', value: 'library.example.edu', broadDomainConfirmed: true }],
      externalTools: [
        { id: 'calc', label: 'Calculator', url: 'https://www.desmos.com/calculator', resourceRules: [], managedByAdmin: false, enabled: true },
      ],
    });
    try {
      const launch = await mint(QUIZ);
      expect(downloadPathOf(launch)).toMatch(/^\/exb\/config\/101\/classicquiz_201\.seb\?grant=/);
      const response = await h.app.inject({ method: 'GET', url: downloadPathOf(launch) });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('application/seb');
      expect(response.headers['content-disposition']).toBe('attachment; filename=quiz_101_classicquiz_201.seb');
      expect(response.headers['content-description']).toBe('File Transfer');
      expect(response.headers['cache-control']).toBe('no-store');
      const opened = openConfiguration(response.rawPayload, h.identity);
      expect(opened.layers).toEqual(['gzip', 'pkhs', 'plnd', 'gzip']);
      expect(opened.settings.get('hashedQuitPassword')).toBe(hashExamBrowserPassword(EXIT_PASSWORD));
      expect((opened.settings.get('examKeySalt') as Uint8Array).length).toBe(32);
      expect(opened.settings.get('URLFilterEnable')).toBe(true);
      expect(filterExpressions(opened.settings)).toEqual([
        'https://.lms.example.test',
        'https://.tool.example.test',
        'https://.www.desmos.com:443/calculator',
        'https://library.example.edu',
      ]);
      // The download's session start: the LMS session URL is minted only when the exam browser opens it.
      expect(opened.startUrl).toMatch(/^https:\/\/tool\.example\.test\/exb\/session-start\/101\/classicquiz_201\?key=[A-Za-z0-9_-]{43}$/);
    } finally {
      await h.courseDefaults({});
    }
  });

  it('HEAD validates without consuming; GET consumes once; a replay is refused', async () => {
    const path = downloadPathOf(await mint(QUIZ));
    for (let i = 0; i < 2; i += 1) {
      const head = await h.app.inject({ method: 'HEAD', url: path });
      expect(head.statusCode).toBe(200);
      expect(head.headers['content-type']).toBe('application/seb');
      expect(head.headers['content-disposition']).toBe('attachment; filename=quiz_101_classicquiz_201.seb');
      expect(head.rawPayload.length).toBe(0);
    }
    expect((await h.app.inject({ method: 'GET', url: path })).statusCode).toBe(200);
    const replay = await h.app.inject({ method: 'GET', url: path });
    expect(replay.statusCode).toBe(403);
    expect(replay.json()).toMatchObject({ success: false, error_code: 'EXB_CONFIG_GRANT_INVALID' });
    expect((await h.app.inject({ method: 'HEAD', url: path })).statusCode).toBe(403);
  });

  it('serves the contract\'s .exb name of the same grant as an octet-stream; the grant is spent once across both names', async () => {
    const grant = grantOf(await mint(QUIZ));
    const exb = `/exb/config/101/classicquiz_201.exb?grant=${grant}`;
    const seb = `/exb/config/101/classicquiz_201.seb?grant=${grant}`;
    const head = await h.app.inject({ method: 'HEAD', url: exb });
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-type']).toBe('application/octet-stream');
    expect(head.headers['content-disposition']).toBe('attachment; filename=quiz_101_classicquiz_201.exb');
    expect((await h.app.inject({ method: 'HEAD', url: seb })).statusCode).toBe(200);
    const response = await h.app.inject({ method: 'GET', url: exb });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/octet-stream');
    expect(response.headers['content-disposition']).toBe('attachment; filename=quiz_101_classicquiz_201.exb');
    expect(response.headers['content-description']).toBe('File Transfer');
    expect(openConfiguration(response.rawPayload, h.identity).configKey).toMatch(/^[0-9a-f]{64}$/);
    for (const path of [seb, exb]) {
      expect((await h.app.inject({ method: 'HEAD', url: path })).statusCode, path).toBe(403);
      expect((await h.app.inject({ method: 'GET', url: path })).statusCode, path).toBe(403);
    }
  });

  it('serves the simulated exam browser: HEAD, then GET, as the real client fetches', async () => {
    const downloaded = await downloadConfiguration(await mint(QUIZ), { fetch: h.fetch });
    expect(downloaded.requests).toEqual([
      { method: 'HEAD', status: 200 },
      { method: 'GET', status: 200 },
    ]);
  });

  it('of many parallel GETs of one grant exactly one gets the file', async () => {
    const path = downloadPathOf(await mint(QUIZ));
    const responses = await Promise.all(Array.from({ length: 20 }, () => h.app.inject({ method: 'GET', url: path })));
    expect(responses.filter((response) => response.statusCode === 200)).toHaveLength(1);
    expect(responses.filter((response) => response.statusCode === 403)).toHaveLength(19);
  });

  it('expires the grant at 120 seconds', async () => {
    const early = downloadPathOf(await mint(QUIZ));
    const late = downloadPathOf(await mint(QUIZ));
    h.clock.advance(119.999);
    try {
      expect((await h.app.inject({ method: 'HEAD', url: late })).statusCode).toBe(200);
      expect((await h.app.inject({ method: 'GET', url: early })).statusCode).toBe(200);
      h.clock.advance(0.001);
      expect((await h.app.inject({ method: 'HEAD', url: late })).statusCode).toBe(403);
      expect((await h.app.inject({ method: 'GET', url: late })).statusCode).toBe(403);
    } finally {
      h.clock.advance(-120);
    }
  });

  it('refuses a grant after the settings fingerprint changed, and after the access code was regenerated', async () => {
    await h.enforce('classicquiz_821');
    const stale = downloadPathOf(await mint('classicquiz_821'));
    await h.update('classicquiz_821', () => ({ exitPasswordOverride: 'another-exit-password' }));
    expect((await h.app.inject({ method: 'HEAD', url: stale })).statusCode).toBe(403);
    expect((await h.app.inject({ method: 'GET', url: stale })).statusCode).toBe(403);

    const beforeRegeneration = downloadPathOf(await mint('classicquiz_821'));
    await h.update('classicquiz_821', () => ({ accessCode: 'regenerated-code' }));
    expect((await h.app.inject({ method: 'GET', url: beforeRegeneration })).statusCode).toBe(403);

    const disabled = downloadPathOf(await mint('classicquiz_821'));
    await h.update('classicquiz_821', () => ({ enabled: false }));
    expect((await h.app.inject({ method: 'GET', url: disabled })).statusCode).toBe(403);
  });

  it('downloads nothing for a grant minted on a second-old policy just before another instance disabled enforcement', async () => {
    await h.enforce('classicquiz_823');
    // This process now holds the policy for up to a second (`RECENT_POLICY_MAX_AGE_MS`).
    await mint('classicquiz_823');
    // Another instance switches enforcement off: the row changes, this process hears nothing of it.
    await h.t.db.pool.query(`update assessment_setting set enabled = false where course_id = $1 and content_id = $2`, [COURSE, 'classicquiz_823']);
    const grant = await h.grant(student(), 'classicquiz_823');
    // Within the second the grant is minted from what this process read; past it, the grant itself is refused.
    expect([200, 404]).toContain(grant.statusCode);
    if (grant.statusCode === 200) {
      const path = downloadPathOf((grant.json() as { exbLaunchUrl: string }).exbLaunchUrl);
      expect((await h.app.inject({ method: 'HEAD', url: path })).statusCode).toBe(403);
      const download = await h.app.inject({ method: 'GET', url: path });
      expect(download.statusCode).toBe(403);
      expect(download.json()).toMatchObject({ error_code: 'EXB_CONFIG_GRANT_INVALID' });
    }
  });

  it('binds the grant to its course and content id', async () => {
    await h.enforce('classicquiz_822');
    const launch = await mint(QUIZ);
    const grant = grantOf(launch);
    for (const path of [`/exb/config/101/classicquiz_822.seb?grant=${grant}`, `/exb/config/102/classicquiz_201.exb?grant=${grant}`]) {
      expect((await h.app.inject({ method: 'GET', url: path })).statusCode).toBe(403);
    }
    // Still unspent: the refusals above did not consume it.
    expect((await h.app.inject({ method: 'GET', url: downloadPathOf(launch) })).statusCode).toBe(200);
  });

  it('refuses a missing or malformed grant with 403 and malformed paths with 404', async () => {
    for (const query of ['', '?grant=', '?grant=short', `?grant=${'A'.repeat(42)}B`, `?grant=${'A'.repeat(43)}&grant=${'A'.repeat(43)}`]) {
      const response = await h.app.inject({ method: 'GET', url: `/exb/config/101/classicquiz_201.exb${query}` });
      expect(response.statusCode, query).toBe(403);
    }
    for (const path of ['/exb/config/101/classicquiz_201.xml', '/exb/config/101/classicquiz_201', '/exb/config/101/classicquiz_201.exb.seb', '/exb/config/abc/classicquiz_201.seb', '/exb/config/101/classicquiz_0201.exb', '/exb/config/101/newquiz:102:303.exb']) {
      expect((await h.app.inject({ method: 'GET', url: `${path}?grant=${'A'.repeat(43)}` })).statusCode, path).toBe(404);
    }
  });

  it('asks the LMS nothing at the download: the session URL is minted when the exam browser opens the start URL', async () => {
    const before = h.lms.calls.count('GET /api/v1/login/session_token');
    h.lms.faults.next('GET /api/v1/login/session_token', { status: 500, times: 5 });
    try {
      const response = await h.app.inject({ method: 'GET', url: downloadPathOf(await mint(QUIZ)) });
      expect(response.statusCode).toBe(200);
      expect(h.lms.calls.count('GET /api/v1/login/session_token')).toBe(before);
    } finally {
      h.lms.faults.clear();
    }
  });

  it('wraps a start-password configuration as pswd inside pkhs, with keys derived once and a fresh IV per file', async () => {
    await h.enforce('classicquiz_831', { startPasswordOverride: 'start-me' });
    const files: Buffer[] = [];
    for (let i = 0; i < 2; i += 1) {
      const response = await h.app.inject({ method: 'GET', url: downloadPathOf(await mint('classicquiz_831', instructor())) });
      expect(response.statusCode).toBe(200);
      files.push(response.rawPayload);
    }
    const opened = files.map((file) => openConfiguration(file, { ...h.identity, password: 'start-me' }));
    expect(opened[0]!.layers).toEqual(['gzip', 'pkhs', 'pswd', 'gzip']);
    // The same settings; only the start URL, each download's own, tells them apart.
    const [first, second] = opened.map(({ settings }) => new Map([...settings].filter(([key]) => key !== 'startURL')));
    expect(first).toEqual(second);
    expect(opened[0]!.startUrl).not.toBe(opened[1]!.startUrl);
    expect(() => openConfiguration(files[0]!, { ...h.identity, password: 'wrong' })).toThrow();
  });
});

describe('budgets and the unencrypted form', () => {
  let small: StudentHarness;
  beforeAll(async () => {
    small = await createStudentHarness({
      env: { EXB_CONFIG_ENCRYPTION_ENABLED: 'false' },
      budgets: { grantPerPrincipal: 2, downloadPerIp: 2 },
    });
    await small.enforce(QUIZ);
    await small.authorizeStudent(3);
  });
  afterAll(() => small.close());

  it('serves the plnd form when EXB_CONFIG_ENCRYPTION_ENABLED is false', async () => {
    const grant = await small.grant();
    const response = await small.app.inject({ method: 'GET', url: downloadPathOf((grant.json() as { exbLaunchUrl: string }).exbLaunchUrl) });
    expect(response.statusCode).toBe(200);
    const opened = openConfiguration(response.rawPayload);
    expect(opened.layers).toEqual(['gzip', 'plnd', 'gzip']);
    expect(opened.startUrl).toContain(`${SERVICE}/exb/session-start/101/classicquiz_201?key=`);
    expect(opened.quitUrl).toMatch(new RegExp(`^${SERVICE}/exb/exit/complete/`));
  });

  it('answers 429 RATE_LIMITED with a 60-second retry hint for grants per principal and downloads per address', async () => {
    const second = await small.grant();
    expect(second.statusCode).toBe(200);
    const third = await small.grant();
    expect(third.statusCode).toBe(429);
    expect(third.headers['retry-after']).toBe('60');
    expect(third.json()).toMatchObject({ success: false, error_code: 'RATE_LIMITED' });

    const path = downloadPathOf((second.json() as { exbLaunchUrl: string }).exbLaunchUrl);
    expect((await small.app.inject({ method: 'HEAD', url: path })).statusCode).toBe(200);
    const limited = await small.app.inject({ method: 'GET', url: path });
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBe('60');
  });
});
