import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { LMS, SERVICE } from './helpers.js';

function directives(csp: unknown): string[] {
  return String(csp)
    .split(';')
    .map((directive) => directive.trim())
    .filter(Boolean);
}

describe('GET /exb/tool/video/:videoId with the default embedding host', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { BASE_URL: SERVICE, LMS_URL: LMS } });
  });
  afterAll(() => t.close());

  it.each(['dQw4w9WgXcQ', 'a_b-c_d-e_f', '___________', '-----------'])('plays %s in one full-viewport frame', async (id) => {
    const response = await t.app.inject({ method: 'GET', url: `/exb/tool/video/${id}` });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers['referrer-policy']).toBe('strict-origin-when-cross-origin');
    expect(directives(response.headers['content-security-policy'])).toEqual([
      "default-src 'none'",
      'frame-src https://www.youtube-nocookie.com',
      "style-src 'unsafe-inline'",
      "base-uri 'none'",
      "form-action 'none'",
    ]);
    const frames = response.body.match(/<iframe\b[^>]*>/g) ?? [];
    expect(frames).toHaveLength(1);
    expect(frames[0]).toContain(
      `src="https://www.youtube-nocookie.com/embed/${id}?rel=0&amp;origin=https%3A%2F%2Ftool.example.test"`,
    );
    expect(response.body).not.toMatch(/<script\b/i);
    expect(response.body).toMatch(/iframe\{position:fixed;inset:0;width:100%;height:100%;border:0\}/);
  });

  it.each([
    'dQw4w9WgXc',
    'dQw4w9WgXcQQ',
    'dQw4w9WgXc!',
    'dQw4w9WgX.Q',
    'dQw4w9WgXc%20',
    '%3Cscript%3E1',
    '..%2F..%2Fetc',
    'dQw4w9WgXc%00',
    'dQw4w9WgXcQ%2F',
    'x'.repeat(300),
    'dQw4w9WgXcé',
  ])('answers 404 for the id %s', async (id) => {
    const response = await t.app.inject({ method: 'GET', url: `/exb/tool/video/${id}` });
    expect(response.statusCode).toBe(404);
    expect(response.body).not.toContain('<iframe');
  });

  it.each(['/exb/tool/video/', '/exb/tool/video', '/exb/tool/video/dQw4w9WgXcQ/extra'])('answers 404 for %s', async (url) => {
    expect((await t.app.inject({ method: 'GET', url })).statusCode).toBe(404);
  });

  it('answers a malformed percent-encoding with a client error', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/exb/tool/video/%E0%A4%A' });
    expect([400, 404]).toContain(response.statusCode);
  });

  it('ignores a query string', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/exb/tool/video/dQw4w9WgXcQ?src=https://evil.example' });
    expect(response.statusCode).toBe(200);
    expect(response.body).not.toContain('evil');
  });
});

describe('GET /exb/tool/video/:videoId with a configured embedding host', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      env: { BASE_URL: 'https://exams.example.test', LMS_URL: LMS, VIDEO_EMBED_HOST: 'https://video.example.test' },
    });
  });
  afterAll(() => t.close());

  it('frames the configured host and names the service origin', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/exb/tool/video/dQw4w9WgXcQ' });
    expect(response.statusCode).toBe(200);
    expect(directives(response.headers['content-security-policy'])).toContain('frame-src https://video.example.test');
    expect(response.body).toContain(
      'src="https://video.example.test/embed/dQw4w9WgXcQ?rel=0&amp;origin=https%3A%2F%2Fexams.example.test"',
    );
  });
});
