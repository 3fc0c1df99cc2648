import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COURSE, createInstructorBed, type InstructorBed } from './harness.js';

// A content id that is not canonical is Document 2's 404 ASSESSMENT_NOT_FOUND however long it is, and Document 3's
// routes answer over-long ids with their own refusals: never the router's 414 or its own error body.

describe('over-long and malformed path values', () => {
  let t: InstructorBed;
  beforeAll(async () => {
    t = await createInstructorBed();
    await t.grant();
    await t.discover();
  });
  afterAll(() => t?.close());

  const long = 'x'.repeat(150);

  it.each([
    ['GET', '/api/quizzes/:quizId'],
    ['GET', '/api/quizzes/:courseId/:quizId/exb/status'],
    ['POST', '/api/quizzes/:courseId/:quizId/exb/enable'],
    ['PUT', '/api/quizzes/:quizId/exb'],
  ] as const)('%s %s with a 150-character quizId answers 404 ASSESSMENT_NOT_FOUND', async (method, route) => {
    const url = route.replace(':courseId', COURSE).replace(':quizId', long);
    const response = await t.request(method, url, method === 'PUT' ? { body: { required: true } } : {});
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ success: false, error_code: 'ASSESSMENT_NOT_FOUND', message: expect.any(String) });
  });

  it('names an over-long assessment of the structured save ASSESSMENT_NOT_FOUND too', async () => {
    for (const body of [{ quizId: 'x'.repeat(300) }, { contentId: `newquiz:${COURSE}:${'1'.repeat(300)}` }]) {
      const response = await t.request('POST', '/api/quizzes/exb-config-structured?userId=2', { body });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ success: false, error_code: 'ASSESSMENT_NOT_FOUND' });
    }
  });

  it('answers a path value beyond the router’s limit with 404 in the service’s shape', async () => {
    const response = await t.request('GET', `/api/quizzes/${'x'.repeat(3000)}`);
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ success: false, error_code: 'NOT_FOUND', message: expect.any(String) });
  });

  it('answers a path that is not valid percent-encoding with 400 INVALID_REQUEST', async () => {
    const response = await t.request('GET', '/api/quizzes/%E0%A4%A');
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ success: false, error_code: 'INVALID_REQUEST', message: expect.any(String) });
  });

  it('gives Document 3 routes over-long ids and grants to refuse themselves', async () => {
    const proof = await t.request('POST', `/api/exb/access-proof/${COURSE}/${long}`, { body: { configKeyHash: 'a'.repeat(64), url: 'https://x/' } });
    expect(proof.statusCode).toBe(404);
    expect(proof.json()).toEqual({ success: false, message: expect.any(String) });
    const redemption = await t.request('POST', `/api/exb/access-code/${COURSE}/classicquiz_201`, { headers: { 'x-exb-proof-token': 'a'.repeat(200) } });
    expect(redemption.statusCode).toBe(403);
    const exit = await t.request('GET', `/exb/exit/session/${COURSE}/classicquiz_201/${'a'.repeat(500)}`);
    expect(exit.statusCode).toBe(403);
    expect(exit.headers['content-type']).toBe('text/html; charset=utf-8');
  });
});
