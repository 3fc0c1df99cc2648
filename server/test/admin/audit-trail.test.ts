import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { APPLICATION_SCOPES } from '@exb/shared/oauth-scopes.js';
import { expectNoSecretsInTrail } from '../support/audit-secrets.js';
import { storeGrant } from '../support/oauth-testbed.js';
import { instructor, sessionFor } from '../support/sessions.js';
import { createAdminBed, type AdminBed } from './harness.js';

/**
 * Administrator changes leave entries like instructors' do; the account's trail lists both, filtered, and exports
 * them as CSV that a spreadsheet cannot run.
 */
let t: AdminBed;

beforeAll(async () => {
  t = await createAdminBed();
});
afterAll(() => t.close());
beforeEach(async () => {
  await t.reset();
  await t.grant();
  await t.connect('101', '102');
  const refreshed = await t.request('POST', '/api/admin/courses/101/refresh');
  expect(refreshed.statusCode, refreshed.body).toBe(200);
  await t.settings.saveCourseDefaults('101', {
    courseId: '101',
    urlRules: [],
    externalTools: [],
    startPassword: 'start-secret-9',
    exitPassword: 'exit-secret-9',
    setupCompleted: true,
  });
});

const COURSE = '/api/admin/courses/101';
const MIDTERM = `${COURSE}/assessments/classicquiz_201`;

interface EntryRow {
  action: string;
  outcome: string;
  actor_role: string;
  actor_lms_user_id: string;
  root_account_id: string | null;
  course_id: string;
  content_id: string | null;
  details: Record<string, unknown>;
}

const entries = () => t.sql<EntryRow>('select * from audit_entry order by id');

async function ok(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown) {
  const response = await t.request(method, path, { body });
  expect(response.statusCode, response.body).toBe(200);
  return response;
}

async function adminActions(): Promise<string[]> {
  const secrets = ['start-secret-9', 'exit-secret-9'];
  await ok('PUT', `${MIDTERM}/exb`, { required: true });
  await ok('POST', `${MIDTERM}/regenerate-code`);
  const rotated = await ok('POST', `${COURSE}/quit-password/rotate`);
  secrets.push(rotated.json().passwords.exit.value);
  const revealed = await ok('POST', `${MIDTERM}/passwords/reveal`);
  secrets.push(revealed.json().passwords.accessCode.value);
  await ok('POST', `${COURSE}/passwords/reveal`);
  await ok('POST', `${MIDTERM}/reset-defaults`);
  await ok('PUT', `${MIDTERM}/exb`, { required: false });
  return secrets;
}

describe('administrator changes', () => {
  it('each leaves an entry naming the administrator and the account, and no secret', async () => {
    const secrets = await adminActions();
    const rows = await entries();
    expect(rows.map((row) => row.action)).toEqual([
      'enforcement.enable',
      'enforcement.regenerate-code',
      'password.rotate',
      'password.reveal',
      'password.reveal',
      'policy.reset-defaults',
      'enforcement.disable',
    ]);
    for (const row of rows) expect(row).toMatchObject({ outcome: 'success', actor_role: 'admin', actor_lms_user_id: '1', root_account_id: '1', course_id: '101' });
    expect(rows[2]!.details).toEqual({ fields: ['exitPassword'] });
    expect(rows[3]).toMatchObject({ content_id: 'classicquiz_201', details: { withLmsCode: true } });
    expectNoSecretsInTrail(rows, secrets);
  });

  it('none is made when its entry cannot be written first, and none is reported failed when only its outcome cannot', async () => {
    const refuse = async (operation: 'insert' | 'update') => {
      await t.sql(`create function refuse_audit_writes() returns trigger language plpgsql as $$ begin raise exception 'trail refused'; end $$`);
      await t.sql(`create trigger refuse_audit_writes before ${operation} on audit_entry for each row execute function refuse_audit_writes()`);
    };
    const allow = async () => {
      await t.sql('drop trigger if exists refuse_audit_writes on audit_entry');
      await t.sql('drop function if exists refuse_audit_writes()');
    };
    const quizCode = () => t.bed.lms.state.quizzes.get(201)!.accessCode;
    try {
      await refuse('insert');
      for (const [method, path, body] of [
        ['PUT', `${MIDTERM}/exb`, { required: true }],
        ['POST', `${COURSE}/quit-password/rotate`, {}],
        ['POST', `${MIDTERM}/passwords/reveal`, {}],
      ] as const) {
        const response = await t.request(method, path, { body });
        expect(response.statusCode, `${method} ${path}: ${response.body}`).toBe(500);
        expect(response.body).not.toContain('exit-secret-9');
      }
      expect(quizCode()).toBeNull();
      expect((await t.settings.loadCourseDefaults('101'))?.exitPassword).toBe('exit-secret-9');
      expect(await entries()).toEqual([]);
      await allow();

      await refuse('update');
      await ok('PUT', `${MIDTERM}/exb`, { required: true });
      expect(quizCode()).not.toBeNull();
      expect((await entries()).map((row) => [row.action, row.outcome])).toEqual([['enforcement.enable', 'pending']]);
    } finally {
      await allow();
    }
  });
});

describe('the account’s audit list', () => {
  async function instructorEnables() {
    await storeGrant(t.bed, 2, APPLICATION_SCOPES);
    const cookie = sessionFor(t.app, instructor()).cookie;
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/quizzes/101/classicquiz_201/exb/enable',
      headers: { cookie, 'sec-fetch-site': 'same-origin' },
      payload: {},
    });
    expect(response.statusCode, response.body).toBe(200);
  }
  const list = async (filter: Record<string, string> = {}) => {
    const input = encodeURIComponent(JSON.stringify(filter));
    const response = await t.request('GET', `/trpc/admin.audit.list?input=${input}`);
    expect(response.statusCode, response.body).toBe(200);
    return response.json().result.data as { entries: { action: string; actor: { role: string } }[]; nextCursor: string | null };
  };

  it('holds administrators’ and instructors’ entries of connected courses, newest first, filtered', async () => {
    await instructorEnables();
    await ok('POST', `${MIDTERM}/regenerate-code`);
    // An entry of a course of another account is not in this account's trail.
    await t.sql(
      `insert into audit_entry (course_id, action, outcome, actor_lms_user_id, actor_role) values ('999', 'enforcement.enable', 'success', '77', 'instructor')`,
    );
    const all = await list();
    expect(all.entries.map((entry) => `${entry.action}/${entry.actor.role}`)).toEqual(['enforcement.regenerate-code/admin', 'enforcement.enable/instructor']);
    expect((await list({ userId: '2' })).entries.map((entry) => entry.action)).toEqual(['enforcement.enable']);
    expect((await list({ action: 'enforcement.regenerate-code' })).entries).toHaveLength(1);
    expect((await list({ action: 'enforcement.' })).entries).toHaveLength(2);
    expect((await list({ courseId: '102' })).entries).toHaveLength(0);
    expect((await list({ from: new Date(Date.now() + 60_000).toISOString() })).entries).toHaveLength(0);
    expect((await list({ to: new Date(Date.now() + 60_000).toISOString() })).entries).toHaveLength(2);
  });

  it('pages with a cursor without skipping or repeating entries of the same millisecond', async () => {
    await t.sql(
      `insert into audit_entry (occurred_at, course_id, action, outcome, actor_lms_user_id, actor_role)
       select '2026-11-25T10:00:00.123456Z', '101', 'policy.save', 'success', '2', 'instructor' from generate_series(1, 120)`,
    );
    const seen: string[] = [];
    let cursor: string | null | undefined;
    do {
      const input = encodeURIComponent(JSON.stringify(cursor ? { cursor } : {}));
      const page = (await ok('GET', `/trpc/admin.audit.list?input=${input}`)).json().result.data;
      seen.push(...page.entries.map((entry: { id: string }) => entry.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toHaveLength(120);
    expect(new Set(seen).size).toBe(120);
  });

  it('exports as CSV with a file name; formula-like cells are defused; no secret', async () => {
    const secrets = await adminActions();
    await t.sql(
      `insert into audit_entry (course_id, action, outcome, actor_lms_user_id, actor_name, actor_role)
       values ('101', 'policy.save', 'success', '5', '=HYPERLINK("http://evil.example")', 'instructor'),
              ('101', 'policy.save', 'success', '6', '@SUM(A1)', 'instructor'), ('101', 'policy.save', 'success', '7', '-1+2', 'instructor')`,
    );
    const response = await t.request('GET', '/api/admin/audit.csv?courseId=101');
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(response.headers['content-disposition']).toMatch(/^attachment; filename="exam-audit-\d{4}-\d{2}-\d{2}\.csv"$/);
    expect(response.headers['cache-control']).toMatch(/no-store/);
    const lines = response.body.trimEnd().split('\r\n');
    expect(lines[0]).toBe('occurred_at,action,outcome,actor_lms_user_id,actor_name,actor_role,course_id,content_id,request_id,details');
    expect(lines).toHaveLength(1 + 7 + 3);
    expect(response.body).toContain(`"'=HYPERLINK(""http://evil.example"")"`);
    expect(response.body).toContain(`,'@SUM(A1),`);
    expect(response.body).toContain(`,'-1+2,`);
    expect(response.body).not.toMatch(/(^|,)[=+@-]/m);
    expectNoSecretsInTrail([response.body], secrets);
    // Only this account's administrators may export; filters are checked like the list's.
    expect((await t.request('GET', '/api/admin/audit.csv', { session: null })).statusCode).toBe(401);
    expect((await t.request('GET', '/api/admin/audit.csv?courseId=abc')).statusCode).toBe(400);
  });
});
