import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { APPLICATION_SCOPES, EXAM_DAY_SCOPES } from '@exb/shared/oauth-scopes.js';
import { missingScopesOf } from '../../src/oauth/lms-refusal.js';
import { instructor } from '../support/sessions.js';
import { COURSE, createInstructorBed, type InstructorBed } from '../instructor/harness.js';

/**
 * `LMS_OAUTH_EXAM_DAY_SCOPES`: off, an authorization asks for the contract's scopes only; on, also for the board's
 * read scopes, which the stored grant then carries and the board reads with.
 */
describe('asking for the exam-day scopes', () => {
  let t: InstructorBed;

  beforeAll(async () => {
    t = await createInstructorBed();
  });
  afterAll(() => t?.close());
  beforeEach(async () => {
    await t.reset();
    for (const table of ['exb_exam_day_student', 'exb_exam_day_lms_read', 'exb_exam_day_roster']) await t.sql(`delete from ${table}`);
  });

  /** Starts an authorization on `app`, approves exactly what it asked for and completes it; returns the scopes asked for. */
  async function authorize(app: InstructorBed['app']): Promise<string[]> {
    const cookie = t.sessionCookie(instructor(), app);
    const start = await app.inject({ method: 'GET', url: '/api/oauth2authorize', headers: { cookie } });
    expect(start.statusCode).toBe(302);
    const location = new URL(start.headers.location as string);
    const scopes = location.searchParams.get('scope')!.split(' ');
    const approval = t.bed.lms.oauth.approve({
      user: 2,
      scopes,
      state: location.searchParams.get('state')!,
      redirectUri: location.searchParams.get('redirect_uri')!,
      clientId: location.searchParams.get('client_id')!,
    });
    const callback = new URL(approval.redirectUrl);
    const done = await app.inject({ method: 'GET', url: `${callback.pathname}${callback.search}`, headers: { cookie } });
    expect(done.statusCode, done.body).toBe(200);
    return scopes;
  }

  it('asks only for the contract’s scopes by default', async () => {
    expect(await authorize(t.app)).toEqual([...APPLICATION_SCOPES]);
  });

  it('asks for the exam-day scopes when configured, stores them, and the board then reads the LMS', async () => {
    const app = await t.appWith((config) => ({ ...config, oauth: { ...config.oauth, examDayScopes: true } }));
    expect(await authorize(app)).toEqual([...APPLICATION_SCOPES, ...Object.values(EXAM_DAY_SCOPES)]);
    expect(await t.sql('select scopes from lms_oauth_token where lms_user_id = ?', ['2'])).toEqual([
      { scopes: [...APPLICATION_SCOPES, ...Object.values(EXAM_DAY_SCOPES)] },
    ]);
    const cookie = t.sessionCookie(instructor(), app);
    const refreshed = await t.request('POST', `/api/quizzes/course/${COURSE}/refresh`, { app, cookie });
    expect(refreshed.statusCode, refreshed.body).toBe(200);
    t.bed.lms.state.startQuizAttempt(201, 3, '2026-11-27T09:10:00.000Z');
    const input = encodeURIComponent(JSON.stringify({ courseId: COURSE, quizId: 'classicquiz_201' }));
    const board = (await t.request('GET', `/trpc/instructor.enforcement.examDayBoard?input=${input}`, { app, cookie })).json().result.data;
    expect(board.attempts).toMatchObject({ missingScope: null, failure: null });
    expect(board.roster).toMatchObject({ source: 'enrollments', missingScope: null });
    expect(board.students.find((student: { lmsUserId: string }) => student.lmsUserId === '3')).toMatchObject({ state: 'in-progress' });
  });

  it('names an exam-day scope the developer key lacks when the LMS refuses the authorization', () => {
    const description = `A requested scope is invalid, unknown, malformed, or exceeds the scope granted by the resource owner. The following scopes were requested, but not granted: ${EXAM_DAY_SCOPES.quizSubmissions} and ${EXAM_DAY_SCOPES.enrollments}`;
    expect(missingScopesOf(description)).toEqual([EXAM_DAY_SCOPES.quizSubmissions, EXAM_DAY_SCOPES.enrollments]);
  });
});
