import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { APPLICATION_SCOPES, EXAM_DAY_SCOPES } from '@exb/shared/oauth-scopes.js';
import { ExamDayBoard } from '../../src/domain/exam-day/board.js';
import { storeGrant } from '../support/oauth-testbed.js';
import { instructor, student } from '../support/sessions.js';
import { COURSE, createInstructorBed, type InstructorBed, type RequestOptions } from '../instructor/harness.js';

/**
 * The exam-day board with what the LMS says: attempts of a classic quiz and of a new quiz, the course's roster, one
 * LMS read a minute per assessment across instances, and a grant without the scopes for it.
 */

const CLASSIC = 'classicquiz_201';
const NEW_QUIZ = `newquiz:${COURSE}:301`;
const ROUTES = {
  quizSubmissions: 'GET /api/v1/courses/:course_id/quizzes/:quiz_id/submissions',
  assignmentSubmissions: 'GET /api/v1/courses/:course_id/assignments/:assignment_id/submissions',
  enrollments: 'GET /api/v1/courses/:course_id/enrollments',
} as const;

interface BoardStudent {
  lmsUserId: string;
  name: string | null;
  state: string;
  attemptStartedAt: string | null;
  attemptSubmittedAt: string | null;
}
interface LmsRead {
  readAt: string | null;
  missingScope: string | null;
  failure: string | null;
}
interface Board {
  students: BoardStudent[];
  counts: Record<string, number>;
  attempts: LmsRead;
  roster: LmsRead & { source: string };
}

describe('the exam-day board reads the LMS', () => {
  let t: InstructorBed;
  const at = (minute: number) => new Date(Date.UTC(2026, 10, 27, 9, minute)).toISOString();
  const calls = (route: string) => t.bed.lms.calls.filter(route).length;

  beforeAll(async () => {
    t = await createInstructorBed();
  });
  afterAll(() => t?.close());
  beforeEach(async () => {
    await t.reset();
    for (const table of ['exb_exam_day_student', 'exb_exam_day_lms_read', 'exb_exam_day_roster']) await t.sql(`delete from ${table}`);
    await storeGrant(t.bed, 2, [...APPLICATION_SCOPES, ...Object.values(EXAM_DAY_SCOPES)]);
    await t.discover();
    // A third student, so the roster has someone with no step and no attempt.
    t.bed.lms.state.enrollments.set(9001, { id: 9001, userId: 7, courseId: 101, type: 'student', state: 'active' });
  });

  async function board(contentId: string, options: { app?: RequestOptions } = {}): Promise<Board> {
    const input = encodeURIComponent(JSON.stringify({ courseId: COURSE, quizId: contentId }));
    const response = await t.request('GET', `/trpc/instructor.enforcement.examDayBoard?input=${input}`, options.app ?? {});
    expect(response.statusCode, response.body).toBe(200);
    return response.json().result.data as Board;
  }
  const released = (lmsUserId: string, contentId: string) =>
    t.sql(
      `insert into exb_exam_day_student (course_id, content_id, lms_user_id, downloads, last_download_at, proven_at, released_at)
       values (?, ?, ?, 1, now(), now(), now())`,
      [COURSE, contentId, lmsUserId],
    );
  /** Moves the last LMS reads a minute and a second into the past. */
  const aMinuteLater = () => t.sql("update exb_exam_day_lms_read set claimed_at = claimed_at - interval '61 seconds'");
  const byId = (read: Board) => Object.fromEntries(read.students.map((student) => [student.lmsUserId, student]));

  it('merges a classic quiz’s attempts and the roster: in progress, stuck at the code, not started, then submitted', async () => {
    t.bed.lms.state.startQuizAttempt(201, 3, at(10));
    await released('4', CLASSIC);
    const first = await board(CLASSIC);
    expect(first.attempts).toEqual({ readAt: expect.any(String), missingScope: null, failure: null });
    expect(first.roster).toEqual({ source: 'enrollments', readAt: expect.any(String), missingScope: null, failure: null });
    expect(byId(first)).toMatchObject({
      '3': { name: 'Sam Student', state: 'in-progress', attemptStartedAt: at(10), attemptSubmittedAt: null },
      '4': { name: 'Sue Student', state: 'released-no-attempt', attemptStartedAt: null },
      '7': { name: 'Olga Other', state: 'not-started' },
    });
    expect(first.students.map((student) => student.name)).toEqual(['Olga Other', 'Sam Student', 'Sue Student']);
    expect(first.counts).toMatchObject({ 'in-progress': 1, 'released-no-attempt': 1, 'not-started': 1, submitted: 0 });

    t.bed.lms.state.finishQuizAttempt(201, 3, at(40));
    t.bed.lms.state.startQuizAttempt(201, 4, at(41));
    await aMinuteLater();
    const second = await board(CLASSIC);
    expect(byId(second)).toMatchObject({
      '3': { state: 'submitted', attemptStartedAt: at(10), attemptSubmittedAt: at(40) },
      '4': { state: 'in-progress', attemptStartedAt: at(41) },
    });
    // The student who has not started is not written down: the roster only shows them.
    expect(await t.sql('select lms_user_id from exb_exam_day_student order by lms_user_id')).toEqual([{ lms_user_id: '3' }, { lms_user_id: '4' }]);
  });

  it('reads a new quiz’s attempts from its assignment’s submissions', async () => {
    t.bed.lms.state.submitAssignment(301, 4, at(30));
    await released('3', NEW_QUIZ);
    const read = await board(NEW_QUIZ);
    expect(calls(ROUTES.assignmentSubmissions)).toBe(1);
    expect(calls(ROUTES.quizSubmissions)).toBe(0);
    expect(byId(read)).toMatchObject({
      '3': { state: 'released-no-attempt' },
      '4': { state: 'submitted', attemptStartedAt: null, attemptSubmittedAt: at(30) },
      '7': { state: 'not-started' },
    });
  });

  it('asks the LMS at most once a minute per assessment, across instances too', async () => {
    await board(CLASSIC);
    expect([calls(ROUTES.quizSubmissions), calls(ROUTES.enrollments)]).toEqual([1, 1]);
    await board(CLASSIC);
    const other = await t.appWith((config) => config);
    await board(CLASSIC, { app: { app: other, cookie: t.sessionCookie(instructor(), other) } });
    await Promise.all([board(CLASSIC), board(CLASSIC, { app: { app: other, cookie: t.sessionCookie(instructor(), other) } })]);
    expect([calls(ROUTES.quizSubmissions), calls(ROUTES.enrollments)]).toEqual([1, 1]);

    // Another assessment has a minute of its own; the course's roster does not.
    await board(NEW_QUIZ);
    expect([calls(ROUTES.assignmentSubmissions), calls(ROUTES.enrollments)]).toEqual([1, 1]);

    await aMinuteLater();
    await board(CLASSIC, { app: { app: other, cookie: t.sessionCookie(instructor(), other) } });
    expect([calls(ROUTES.quizSubmissions), calls(ROUTES.enrollments)]).toEqual([2, 2]);
  });

  it('gives pushed updates the last reads without asking the LMS', async () => {
    t.bed.lms.state.startQuizAttempt(201, 3, at(10));
    const read = await board(CLASSIC);
    const before = t.bed.lms.calls.count();
    const stored = await new ExamDayBoard(t.bed.t.db.orm, Date.now).read(COURSE, CLASSIC);
    expect(t.bed.lms.calls.count()).toBe(before);
    expect({ ...stored, generatedAt: read.generatedAt }).toEqual(read);
  });

  it('forgets reads and roster students past their retention', async () => {
    await board(CLASSIC);
    const store = new ExamDayBoard(t.bed.t.db.orm, Date.now).lmsStore;
    expect(await store.purgeOlderThan(new Date(Date.now() - 60_000))).toBe(0);
    expect(await store.purgeOlderThan(new Date(Date.now() + 60_000))).toBe(5);
    expect(await t.sql('select * from exb_exam_day_lms_read')).toEqual([]);
    expect(await t.sql('select * from exb_exam_day_roster')).toEqual([]);
  });

  it('asks the LMS for no one else: a student and another course’s teacher are refused before any read', async () => {
    const input = encodeURIComponent(JSON.stringify({ courseId: COURSE, quizId: CLASSIC }));
    const url = `/trpc/instructor.enforcement.examDayBoard?input=${input}`;
    const asStudent = await t.request('GET', url, { cookie: t.sessionCookie(student()) });
    expect(asStudent.json().error.data.errorCode).toBe('INSTRUCTOR_REQUIRED');
    const otherTeacher = await t.request('GET', url, { cookie: t.sessionCookie(instructor({ lmsUserId: '7', courseId: '104' })) });
    // Their course is not this one, nor proven for them: refused either way, and never with a board.
    expect([401, 403]).toContain(otherTeacher.statusCode);
    expect(otherTeacher.json().result).toBeUndefined();
    expect(calls(ROUTES.quizSubmissions) + calls(ROUTES.enrollments)).toBe(0);
    expect(await t.sql('select * from exb_exam_day_lms_read')).toEqual([]);
  });

  it('reads every page of a large course', async () => {
    for (let n = 0; n < 150; n += 1) {
      const id = 5000 + n;
      const name = `Student ${String(n).padStart(3, '0')}`;
      t.bed.lms.state.users.set(id, {
        id,
        name,
        sortableName: name,
        email: null,
        sisUserId: null,
        locale: 'en',
        persona: undefined,
        label: undefined,
        siteAdmin: false,
        ltiId: `lti-${id}`,
      });
      t.bed.lms.state.enrollments.set(id, { id, userId: id, courseId: 101, type: 'student', state: 'active' });
      t.bed.lms.state.startQuizAttempt(201, id, at(n % 60));
    }
    const read = await board(CLASSIC);
    expect(calls(ROUTES.enrollments)).toBe(2);
    expect(calls(ROUTES.quizSubmissions)).toBe(2);
    expect(read.students).toHaveLength(153);
    expect(read.counts).toMatchObject({ 'in-progress': 150, 'not-started': 3 });
  });

  it('names the scope a grant lacks and shows the rest of the board', async () => {
    await t.sql('delete from lms_oauth_token');
    await storeGrant(t.bed, 2, APPLICATION_SCOPES);
    await released('4', CLASSIC);
    const read = await board(CLASSIC);
    expect(read.attempts).toEqual({ readAt: null, missingScope: EXAM_DAY_SCOPES.quizSubmissions, failure: null });
    expect(read.roster).toEqual({ source: 'unavailable', readAt: null, missingScope: EXAM_DAY_SCOPES.enrollments, failure: null });
    expect(read.students.map(({ lmsUserId, state }) => ({ lmsUserId, state }))).toEqual([{ lmsUserId: '4', state: 'released-no-attempt' }]);

    await aMinuteLater();
    const newQuiz = await board(NEW_QUIZ);
    expect(newQuiz.attempts.missingScope).toBe(EXAM_DAY_SCOPES.assignmentSubmissions);
  });

  it('waits out the LMS’s throttling inside the read', async () => {
    t.bed.lms.state.startQuizAttempt(201, 3, at(10));
    t.bed.lms.faults.next(ROUTES.quizSubmissions, { kind: 'rate-limit', form: '429' });
    t.bed.lms.faults.next(ROUTES.enrollments, { kind: 'rate-limit', form: '403' });
    const read = await board(CLASSIC);
    expect(read.attempts).toMatchObject({ readAt: expect.any(String), failure: null });
    expect(read.roster).toMatchObject({ source: 'enrollments', failure: null });
    expect([calls(ROUTES.quizSubmissions), calls(ROUTES.enrollments)]).toEqual([2, 2]);
    expect(byId(read)['3']).toMatchObject({ state: 'in-progress' });
  });

  it('keeps the last read when the LMS fails, and says how it failed', async () => {
    t.bed.lms.state.startQuizAttempt(201, 3, at(10));
    const first = await board(CLASSIC);
    t.bed.lms.faults.next(ROUTES.quizSubmissions, { status: 404 });
    await aMinuteLater();
    const second = await board(CLASSIC);
    expect(second.attempts).toEqual({ readAt: first.attempts.readAt, missingScope: null, failure: 'LMS_NOT_FOUND' });
    expect(byId(second)['3']).toMatchObject({ state: 'in-progress' });
  });

  it('keeps an attempt a narrower read leaves out, and lets a student who left the course leave the roster', async () => {
    t.bed.lms.state.startQuizAttempt(201, 3, at(10));
    expect(byId(await board(CLASSIC))['7']).toMatchObject({ name: 'Olga Other', state: 'not-started' });
    t.bed.lms.state.removeFromCourse(3, 101);
    t.bed.lms.state.removeFromCourse(7, 101);
    await aMinuteLater();
    const after = byId(await board(CLASSIC));
    expect(after['3']).toMatchObject({ state: 'in-progress', attemptStartedAt: at(10) });
    expect(after['7']).toMatchObject({ state: 'not-started' });
    await t.sql("update exb_exam_day_roster set read_at = read_at - interval '11 minutes' where lms_user_id = '7'");
    await aMinuteLater();
    expect(byId(await board(CLASSIC))['7']).toBeUndefined();
  });
});
