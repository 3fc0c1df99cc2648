import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';

/** The access log: every refusal and ordinary request on its own line, the hot paths' successes counted per minute. */

let t: TestApp;
const lines: string[] = [];

beforeAll(async () => {
  t = await createTestApp({ logLines: lines });
});
afterAll(async () => {
  await t?.close();
});

const entries = () => lines.map((line) => JSON.parse(line) as { level: number; msg: string; req?: { url?: string }; res?: { statusCode?: number }; routes?: Record<string, { count: number }> });

describe('the access log', () => {
  it('writes no info line for a hot path answered 200, one for a refusal, and counts the hot path on close', async () => {
    lines.length = 0;
    for (let i = 0; i < 3; i += 1) {
      expect((await t.app.inject({ method: 'GET', url: '/api/exb/requirement/101/classicquiz_201' })).statusCode).toBe(200);
    }
    const refused = await t.app.inject({ method: 'POST', url: '/api/exb/access-code/101/classicquiz_201', headers: { 'x-exb-proof-token': 'nope' } });
    expect(refused.statusCode).toBe(403);
    // At debug (the test app's level) every hot-path answer has its own debug line too; at info only the refusal.
    const completed = entries().filter((entry) => entry.msg === 'request completed' && entry.level >= 30);
    expect(entries().filter((entry) => entry.msg === 'request completed' && entry.level === 20)).toHaveLength(3);
    expect(completed.map((entry) => [entry.req?.url, entry.res?.statusCode, entry.level])).toEqual([
      ['/api/exb/access-code/101/classicquiz_201', 403, 30],
    ]);
    expect(entries().some((entry) => entry.msg === 'incoming request')).toBe(false);

    // The LTI login a student's start begins with: its redirect is counted, its refusal logged.
    const refusedLogin = await t.app.inject({ method: 'POST', url: '/lti/login', payload: {} });
    expect(refusedLogin.statusCode).toBe(400);
    expect(entries().filter((entry) => entry.msg === 'request completed' && entry.level >= 30).map((entry) => entry.req?.url)).toContain('/lti/login');

    await t.app.close();
    const counted = entries().find((entry) => entry.msg === 'hot paths in the last minute');
    expect(counted?.routes?.['GET /api/exb/requirement/*']?.count).toBe(3);
  });
});
