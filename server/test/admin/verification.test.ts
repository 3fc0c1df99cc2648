import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { createAdminBed, LMS_ROUTES, type AdminBed } from './harness.js';

/**
 * The administrator sees access codes the LMS lost: the course row counts them (`issueCount`), the course detail
 * lists them with their status, and the repair works with the administrator's grant, behind the action token.
 */
let t: AdminBed;

beforeAll(async () => {
  t = await createAdminBed();
});
afterAll(() => t.close());
beforeEach(async () => {
  await t.reset();
  await t.grant();
  await t.connect('101');
  await t.settings.saveCourseDefaults('101', { courseId: '101', urlRules: [], externalTools: [], startPassword: null, exitPassword: 'exit-9', setupCompleted: true });
  expect((await t.request('POST', '/api/admin/courses/101/refresh')).statusCode).toBe(200);
  for (const id of ['classicquiz_201', 'newquiz:101:301']) {
    const response = await t.request('PUT', `/api/admin/courses/101/assessments/${encodeURIComponent(id)}/exb`, { body: { required: true } });
    expect(response.statusCode, response.body).toBe(200);
  }
});

const courseRow = async () => (await t.request('GET', '/api/admin/courses')).json().courses.find((row: { id: string }) => row.id === '101');
const detailStatus = async (id: string) =>
  (await t.request('GET', '/api/admin/courses/101')).json().course.assessments.find((row: { id: string }) => row.id === id);

it('counts and lists missing and stale codes after a refresh, and a re-apply clears the issue', async () => {
  expect((await courseRow()).issueCount).toBe(0);
  t.bed.lms.state.quizzes.get(201)!.accessCode = null;
  Object.assign(t.bed.lms.state.newQuizSettings(301), { require_student_access_code: true, student_access_code: 'set-by-hand' });
  expect((await t.request('POST', '/api/admin/courses/101/refresh')).statusCode).toBe(200);

  expect((await courseRow()).issueCount).toBe(2);
  expect(await detailStatus('classicquiz_201')).toMatchObject({
    verificationStatus: 'missing',
    verificationReason: 'The LMS has no access code on this quiz, so any browser can open it.',
    exbRequired: true,
    hasAccessCode: true,
  });
  expect(await detailStatus('newquiz:101:301')).toMatchObject({
    verificationStatus: 'stale',
    verificationReason: 'The LMS has another access code than the one the service gives to exam browsers.',
  });

  const path = '/api/admin/courses/101/assessments/classicquiz_201/protection/reapply';
  const refused = await t.request('POST', path, { actionToken: null });
  expect(refused.statusCode).toBe(403);
  expect(refused.json().error_code).toBe('INVALID_ACTION_TOKEN');
  expect(t.bed.lms.state.quizzes.get(201)!.accessCode).toBeNull();

  const repaired = await t.request('POST', path);
  expect(repaired.statusCode, repaired.body).toBe(200);
  expect(repaired.json().setting.verificationStatus).toBe('verified');
  expect(t.bed.lms.calls.last(LMS_ROUTES.updateQuiz)!.userId).toBe(1);
  expect(t.bed.lms.state.quizzes.get(201)!.accessCode).toEqual(expect.any(String));
  expect((await courseRow()).issueCount).toBe(1);
  expect(await detailStatus('classicquiz_201')).toMatchObject({ verificationStatus: 'verified', verificationReason: null });

  const accepted = await t.request('POST', `/api/admin/courses/101/assessments/${encodeURIComponent('newquiz:101:301')}/protection/accept-lms-code`);
  expect(accepted.statusCode, accepted.body).toBe(200);
  expect((await t.settings.loadAssessmentSettings('101', 'newquiz:101:301'))!.accessCode).toBe('set-by-hand');
  expect((await courseRow()).issueCount).toBe(0);
  const audit = await t.sql<{ action: string; root_account_id: string }>("select action, root_account_id from audit_entry where action like 'enforcement.%' order by id");
  expect(audit.filter((entry) => entry.action.endsWith('reapply-protection') || entry.action.endsWith('accept-lms-code'))).toEqual([
    { action: 'enforcement.reapply-protection', root_account_id: '1' },
    { action: 'enforcement.accept-lms-code', root_account_id: '1' },
  ]);
});
