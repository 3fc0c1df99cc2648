import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ExbUrlRule } from '@exb/shared/exb-policy.js';
import { createAdminBed, type AdminBed } from './harness.js';

// The administrator's course detail marks a course's stored URL rules the exam browser reads differently, and the
// administrator may rewrite one to its faithful form, as they may reset an assessment's policy.

const PLUS = 'https://tool.example.com/search?q=a+b';
const PLUS_FAITHFUL = 'https://tool.example.com/search?q=a%20b';
const exact = (value: string): ExbUrlRule => ({ match: 'exact', value });

let t: AdminBed;

beforeAll(async () => {
  t = await createAdminBed();
});
afterAll(() => t.close());
beforeEach(async () => {
  await t.reset();
  await t.grant();
  await t.connect('101');
  await t.settings.saveCourseDefaults('101', { courseId: '101', urlRules: [exact(PLUS)], externalTools: [], startPassword: null, exitPassword: 'x-1', setupCompleted: true });
});

const readings = (courseId: string) => t.request('GET', `/trpc/admin.courses.urlRuleReadings?input=${encodeURIComponent(JSON.stringify({ courseId }))}`);
const rewrite = (input: Record<string, unknown>) => t.request('POST', '/trpc/admin.courses.rewriteUrlRule', { body: input });

describe('stored URL rules in the administrator’s course detail', () => {
  it('marks them, rewrites one in one click with an audit entry, and then marks it no more', async () => {
    const before = await readings('101');
    expect(before.statusCode, before.body).toBe(200);
    expect(before.json().result.data.course).toEqual([expect.objectContaining({ value: PLUS, faithful: PLUS_FAITHFUL })]);

    const response = await rewrite({ courseId: '101', value: PLUS });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().result.data).toEqual({ success: true, rewritten: true, value: PLUS_FAITHFUL });
    expect((await t.settings.loadCourseDefaults('101'))?.urlRules).toEqual([exact(PLUS_FAITHFUL)]);
    expect((await readings('101')).json().result.data.course).toEqual([]);
    const trail = await t.sql<{ action: string; outcome: string; actor_role: string; root_account_id: string }>(
      `select * from audit_entry where action = 'url-rule.rewrite'`,
    );
    expect(trail).toEqual([expect.objectContaining({ outcome: 'success', actor_role: 'admin', root_account_id: '1' })]);
  });

  it('refuses a course that is not connected, and a mutation without the page’s action token', async () => {
    expect((await readings('102')).json().error.data.errorCode).toBe('ADMIN_COURSE_NOT_CONNECTED');
    expect((await rewrite({ courseId: '102', value: PLUS })).json().error.data.errorCode).toBe('ADMIN_COURSE_NOT_CONNECTED');
    const tokenless = await t.request('POST', '/trpc/admin.courses.rewriteUrlRule', { body: { courseId: '101', value: PLUS }, actionToken: null });
    expect(tokenless.json().error.data.errorCode).toBe('INVALID_ACTION_TOKEN');
    expect((await t.settings.loadCourseDefaults('101'))?.urlRules).toEqual([exact(PLUS)]);
  });
});
