import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { createContext, createPreExamSweep } from '../../src/app.js';
import { createLogger } from '../../src/logger.js';
import { FAST_OAUTH } from '../support/oauth-testbed.js';
import { admin, instructor } from '../support/sessions.js';
import { createAdminBed, LMS_ROUTES, type AdminBed } from './harness.js';

/**
 * The administrator's side of exam day's drift: the dashboard's pre-exam alerts over the account's courses, a course's
 * opt-in to automatic repairs, and clearing an access code this service does not manage, behind the action token.
 */
let t: AdminBed;
const LAB = 'classicquiz_204';
const CLEAR = (course: string, id: string) => `/api/admin/courses/${course}/assessments/${id}/protection/clear-lms-code`;

beforeAll(async () => {
  t = await createAdminBed();
});
afterAll(() => t.close());
beforeEach(async () => {
  await t.reset();
  await t.sql('delete from pre_exam_sweep');
  await t.sql('delete from course_sweep_option');
  await t.grant();
  await t.connect('101');
  await t.settings.saveCourseDefaults('101', { courseId: '101', urlRules: [], externalTools: [], startPassword: null, exitPassword: 'exit-9', setupCompleted: true });
  t.bed.lms.state.quizzes.get(201)!.dueAt = new Date(Date.now() + 30 * 60_000).toISOString();
  expect((await t.request('POST', '/api/admin/courses/101/refresh')).statusCode).toBe(200);
});

const trpcQuery = async (path: string, input?: unknown, session = t.session) =>
  t.app.inject({
    method: 'GET',
    url: `/trpc/${path}${input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(input))}`}`,
    headers: { cookie: session.cookie },
  });
const trpcMutation = (path: string, body: unknown, options: { session?: typeof t.session; actionToken?: string | null } = {}) => {
  const session = options.session ?? t.session;
  const token = options.actionToken === undefined ? session.actionToken : options.actionToken;
  return t.app.inject({
    method: 'POST',
    url: `/trpc/${path}`,
    headers: { cookie: session.cookie, 'sec-fetch-site': 'same-origin', ...(token === null ? {} : { 'x-exb-action-token': token }) },
    payload: body as Record<string, unknown>,
  });
};

it('clears a code this service does not manage with the administrator’s grant, audited under the account', async () => {
  const cleared = await t.request('POST', CLEAR('101', LAB));
  expect(cleared.statusCode, cleared.body).toBe(200);
  expect(t.bed.lms.state.quizzes.get(204)!.accessCode).toBeNull();
  expect(t.bed.lms.calls.last(LMS_ROUTES.updateQuiz)!.userId).toBe(1);
  const audit = await t.sql<{ outcome: string; actor_role: string; root_account_id: string }>(
    "select outcome, actor_role, root_account_id from audit_entry where action = 'enforcement.clear-lms-code'",
  );
  expect(audit).toEqual([{ outcome: 'success', actor_role: 'admin', root_account_id: '1' }]);
});

it('refuses clearing without the action token, in a course not connected, to a teacher and to a sub-account administrator', async () => {
  t.bed.lms.calls.clear();
  expect((await t.request('POST', CLEAR('101', LAB), { actionToken: null })).json().error_code).toBe('INVALID_ACTION_TOKEN');
  const notConnected = await t.request('POST', CLEAR('104', 'classicquiz_206'));
  expect(notConnected.json().error_code).toBe('ADMIN_COURSE_NOT_CONNECTED');
  const teacher = await t.sessionOf(instructor());
  expect((await t.request('POST', CLEAR('101', LAB), { session: teacher })).json().error_code).toBe('ADMIN_REQUIRED');
  await t.grant(8);
  const subAccount = await t.sessionOf(admin({ lmsUserId: '8', ltiSubject: 'sub-user-8', ltiContextId: t.bed.lms.state.accounts.get(2)!.ltiContextId }));
  expect((await t.request('POST', CLEAR('101', LAB), { session: subAccount })).json().error_code).toBe('ADMIN_NOT_CONFIRMED');
  expect(t.bed.lms.calls.count(LMS_ROUTES.updateQuiz)).toBe(0);
  expect(t.bed.lms.state.quizzes.get(204)!.accessCode).toBe('lab-2026');
});

it('opts a course in, and the dashboard and the course show the sweep’s alert and repair', async () => {
  const enabled = await t.request('PUT', '/api/admin/courses/101/assessments/classicquiz_201/exb', { body: { required: true } });
  expect(enabled.statusCode, enabled.body).toBe(200);
  expect((await trpcMutation('admin.courses.setAutoRepair', { courseId: '101', autoRepairBeforeStart: true }, { actionToken: null })).statusCode).toBe(403);
  const optIn = await trpcMutation('admin.courses.setAutoRepair', { courseId: '101', autoRepairBeforeStart: true });
  expect(optIn.statusCode, optIn.body).toBe(200);
  const notConnected = await trpcMutation('admin.courses.setAutoRepair', { courseId: '104', autoRepairBeforeStart: true });
  expect(notConnected.json().error.data).toMatchObject({ httpStatus: 404 });

  t.bed.lms.state.quizzes.get(201)!.accessCode = null;
  const ctx = await createContext({ config: t.bed.t.config, logger: createLogger('silent'), db: t.bed.t.db, oauth: FAST_OAUTH });
  expect((await createPreExamSweep(ctx).run()).outcomes).toMatchObject({ repaired: 1 });
  expect(t.bed.lms.state.quizzes.get(201)!.accessCode).toEqual(expect.any(String));
  // The administrator's stored grant acted: the course has no instructor's.
  expect(t.bed.lms.calls.last(LMS_ROUTES.updateQuiz)!.userId).toBe(1);

  const dashboard = await trpcQuery('admin.preExamAlerts');
  expect(dashboard.statusCode, dashboard.body).toBe(200);
  expect(dashboard.json().result.data.alerts).toEqual([
    expect.objectContaining({ courseId: '101', contentId: 'classicquiz_201', found: 'missing', repaired: true, title: 'Midterm exam' }),
  ]);
  const course = await trpcQuery('admin.courses.preExamSweep', { courseId: '101' });
  expect(course.json().result.data).toMatchObject({ autoRepairBeforeStart: true, alerts: [expect.objectContaining({ outcome: 'repaired' })] });
  const teacher = await t.sessionOf(instructor());
  expect((await trpcQuery('admin.preExamAlerts', undefined, teacher)).statusCode).toBe(403);
});
