import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN_AND_APPLICATION_SCOPES } from '@exb/shared/oauth-scopes.js';
import { defaultAssessmentSettings } from '../../src/domain/settings/model.js';
import type { Principal } from '../../src/identity/principal.js';
import { ACTION_TOKEN_HEADER } from '../../src/security/action-token.js';
import { SENSITIVE_RESPONSE_HEADERS } from '../../src/security/sensitive-headers.js';
import { createAdminBed, type AdminBed, type AdminSession } from '../admin/harness.js';
import { expectNoSecretsInTrail } from '../support/audit-secrets.js';
import { storeGrant } from '../support/oauth-testbed.js';
import { admin, instructor, sessionFor, student } from '../support/sessions.js';

/**
 * Exam day, the code sheet for an outage: a root administrator prints the current access codes of chosen assessments
 * of connected courses, with a reason; one audit entry per sheet names the assessments, never a code. Nobody else gets
 * a sheet.
 */
let t: AdminBed;
const REASON = 'Campus network down during the chemistry final';
const CODES = { classicquiz_201: 'bio-midterm-5521', 'newquiz:101:301': 'bio-final-7713', classicquiz_205: 'chem-quiz-0042' } as const;

beforeAll(async () => {
  t = await createAdminBed();
});
afterAll(() => t.close());
beforeEach(async () => {
  await t.reset();
  await t.grant();
  await t.connect('101', '102');
  for (const courseId of ['101', '102']) {
    expect((await t.request('POST', `/api/admin/courses/${courseId}/refresh`)).statusCode).toBe(200);
  }
  for (const [contentId, accessCode] of Object.entries(CODES)) {
    const courseId = contentId === 'classicquiz_205' ? '102' : '101';
    await t.settings.saveAssessmentSettings(courseId, {
      ...defaultAssessmentSettings(courseId, contentId),
      exbRequired: true,
      enabled: true,
      accessCode,
      exitPasswordOverride: 'leave-now',
    });
  }
});

const SELECTIONS = [
  { courseId: '101', assessmentIds: ['classicquiz_201', 'newquiz:101:301', 'classicquiz_202'] },
  { courseId: '102', assessmentIds: ['classicquiz_205'] },
];

function sheet(input: unknown, options: { session?: AdminSession; actionToken?: string | null } = {}) {
  const session = options.session ?? t.session;
  const token = options.actionToken === undefined ? session.actionToken : options.actionToken;
  return t.app.inject({
    method: 'POST',
    url: '/trpc/admin.courses.codeSheet',
    headers: {
      cookie: session.cookie,
      'sec-fetch-site': 'same-origin',
      'content-type': 'application/json',
      ...(token === null ? {} : { [ACTION_TOKEN_HEADER]: token }),
    },
    payload: input as Record<string, unknown>,
  });
}

const trail = () => t.sql<{ action: string; outcome: string; course_id: string | null; root_account_id: string | null; details: Record<string, unknown> }>(
  `select action, outcome, course_id, root_account_id, details from audit_entry where action = 'exam-day.code-sheet' order by occurred_at`,
);

describe('the code sheet', () => {
  it('lists the current codes of the chosen assessments across courses, with one audit entry and no code in it', async () => {
    const response = await sheet({ reason: REASON, selections: SELECTIONS });
    expect(response.statusCode).toBe(200);
    for (const [name, value] of Object.entries(SENSITIVE_RESPONSE_HEADERS)) expect(response.headers[name]).toBe(value);
    const { lines } = response.json().result.data;
    expect(lines).toEqual([
      { courseId: '101', courseName: 'Biology 101', assessmentId: 'classicquiz_201', title: 'Midterm exam', accessCode: CODES.classicquiz_201 },
      { courseId: '101', courseName: 'Biology 101', assessmentId: 'newquiz:101:301', title: 'Final exam (New Quizzes)', accessCode: CODES['newquiz:101:301'] },
      // Not enforced: no code to print, and nothing the LMS holds is read.
      { courseId: '101', courseName: 'Biology 101', assessmentId: 'classicquiz_202', title: 'Weekly practice quiz', accessCode: null },
      { courseId: '102', courseName: 'Chemistry 201', assessmentId: 'classicquiz_205', title: 'Stoichiometry quiz', accessCode: CODES.classicquiz_205 },
    ]);
    const entries = await trail();
    expect(entries).toEqual([
      {
        action: 'exam-day.code-sheet',
        outcome: 'success',
        course_id: null,
        root_account_id: '1',
        details: { reason: REASON, assessments: ['101/classicquiz_201', '101/newquiz:101:301', '101/classicquiz_202', '102/classicquiz_205'], printed: 3 },
      },
    ]);
    expectNoSecretsInTrail(entries, Object.values(CODES));
  });

  it('prints a disabled assessment’s code no more', async () => {
    const current = (await t.settings.loadAssessmentSettings('101', 'classicquiz_201'))!;
    await t.settings.saveAssessmentSettings('101', { ...current, enabled: false });
    const response = await sheet({ reason: REASON, selections: [{ courseId: '101', assessmentIds: ['classicquiz_201'] }] });
    expect(response.json().result.data.lines[0].accessCode).toBeNull();
    // A sheet of one course is in that course's trail.
    expect((await trail()).map((entry) => entry.course_id)).toEqual(['101']);
  });

  it('requires a reason and a bounded selection', async () => {
    for (const input of [
      { selections: SELECTIONS },
      { reason: '  ', selections: SELECTIONS },
      { reason: 'r'.repeat(501), selections: SELECTIONS },
      { reason: REASON, selections: [] },
      { reason: REASON, selections: [{ courseId: '101', assessmentIds: [] }] },
      { reason: REASON, selections: [{ courseId: '101', assessmentIds: Array.from({ length: 101 }, (_, i) => `classicquiz_${i}`) }] },
    ]) {
      const response = await sheet(input);
      expect({ input, status: response.statusCode }).toEqual({ input, status: 400 });
      expect(response.body).not.toContain(CODES.classicquiz_201);
    }
    expect(await trail()).toEqual([]);
  });

  it('prints nothing when one course is not connected or one assessment is not the course’s', async () => {
    const foreign = await sheet({ reason: REASON, selections: [...SELECTIONS, { courseId: '104', assessmentIds: ['classicquiz_206'] }] });
    expect([foreign.statusCode, foreign.json().error.data.errorCode]).toEqual([404, 'ADMIN_COURSE_NOT_CONNECTED']);
    const wrongCourse = await sheet({ reason: REASON, selections: [{ courseId: '101', assessmentIds: ['classicquiz_201', 'classicquiz_205'] }] });
    expect([wrongCourse.statusCode, wrongCourse.json().error.data.errorCode]).toEqual([404, 'ASSESSMENT_NOT_FOUND']);
    for (const response of [foreign, wrongCourse]) {
      for (const code of Object.values(CODES)) expect(response.body).not.toContain(code);
      expect(response.headers['cache-control']).toBe(SENSITIVE_RESPONSE_HEADERS['cache-control']);
    }
    expect(await trail()).toEqual([]);
  });

  it('is for root administrators only: not a teacher, a student or a sub-account administrator', async () => {
    const asPage = async (principal: Principal): Promise<AdminSession> => ({ cookie: sessionFor(t.app, principal).cookie, actionToken: '' });
    await storeGrant(t.bed, 2, ADMIN_AND_APPLICATION_SCOPES);
    for (const [principal, code] of [
      [instructor(), 'ADMIN_REQUIRED'],
      [instructor({ lmsUserId: '7', courseId: '104' }), 'ADMIN_REQUIRED'],
      [student(), 'ADMIN_REQUIRED'],
    ] as const) {
      const response = await sheet({ reason: REASON, selections: SELECTIONS }, { session: await asPage(principal) });
      expect({ kind: principal.kind, status: response.statusCode, code: response.json().error.data.errorCode }).toEqual({ kind: principal.kind, status: 403, code });
    }
    // A sub-account administrator whose launch claimed the root account: the signed context is sub-account 2.
    await t.grant(8);
    const subAdmin = await t.sessionOf(admin({ lmsUserId: '8', ltiSubject: 'sub-user-8', ltiContextId: t.bed.lms.state.accounts.get(2)!.ltiContextId }));
    const refused = await sheet({ reason: REASON, selections: SELECTIONS }, { session: subAdmin });
    expect([refused.statusCode, refused.json().error.data.errorCode]).toEqual([403, 'ADMIN_NOT_CONFIRMED']);
    // The root administrator without the page's action token.
    const tokenless = await sheet({ reason: REASON, selections: SELECTIONS }, { actionToken: null });
    expect([tokenless.statusCode, tokenless.json().error.data.errorCode]).toEqual([403, 'INVALID_ACTION_TOKEN']);
    expect(await trail()).toEqual([]);
  });
});
