import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AuditLog, auditActor } from '../../src/audit/audit-log.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { admin, instructor } from '../support/sessions.js';

let t: TestApp;
let audit: AuditLog;
beforeAll(async () => {
  t = await createTestApp();
  audit = new AuditLog(t.db.orm);
});
afterAll(() => t.close());
beforeEach(async () => {
  await t.db.orm.em.getConnection().execute('delete from audit_entry', [], 'run');
});

describe('the audit trail', () => {
  it('records who, what, where and the outcome, and lists newest first with filters', async () => {
    await audit.record({
      action: 'enforcement.enable',
      outcome: 'success',
      actor: auditActor(instructor({ name: 'Ian Instructor' })),
      courseId: '101',
      contentId: 'classicquiz_201',
      requestId: 'req-1',
      details: { changed: ['exbRequired'] },
    });
    await audit.record({ action: 'tool-preset.create', outcome: 'success', actor: auditActor(admin()), rootAccountId: '1', details: { name: 'Calculator' } });
    await audit.record({ action: 'course.reset', outcome: 'rolled-back', actor: auditActor(admin()), rootAccountId: '1', courseId: '102' });

    const all = await audit.list({ limit: 10 });
    expect(all.map((entry) => entry.action)).toEqual(['course.reset', 'tool-preset.create', 'enforcement.enable']);
    expect(all[2]).toMatchObject({
      outcome: 'success',
      actor: { lmsUserId: '2', name: 'Ian Instructor', role: 'instructor' },
      courseId: '101',
      contentId: 'classicquiz_201',
      requestId: 'req-1',
      details: { changed: ['exbRequired'] },
    });
    expect((await audit.list({ limit: 10, rootAccountId: '1', action: 'tool-preset.' })).map((e) => e.action)).toEqual(['tool-preset.create']);
    expect((await audit.list({ limit: 10, courseId: '101' })).length).toBe(1);
    expect((await audit.list({ limit: 10, actorLmsUserId: '1' })).length).toBe(2);
    const [newest] = all;
    expect((await audit.list({ limit: 10, before: { occurredAt: newest!.occurredAt, id: newest!.id } })).length).toBe(2);
  });

  it('refuses details that name a secret, and writes nothing', async () => {
    for (const key of ['exitPassword', 'accessCode', 'access_code', 'sessionUrl', 'token', 'refreshToken', 'grant']) {
      await expect(
        audit.record({ action: 'password.rotate', outcome: 'success', actor: auditActor(admin()), details: { [key]: 'x' } }),
      ).rejects.toThrow(/never name a secret/);
    }
    expect(await audit.list({ limit: 10 })).toEqual([]);
  });

  it('purges entries older than the retention', async () => {
    await audit.record({ action: 'enforcement.disable', outcome: 'success', actor: auditActor(instructor()) });
    await t.db.orm.em.getConnection().execute("update audit_entry set occurred_at = now() - interval '401 days'", [], 'run');
    await audit.record({ action: 'enforcement.enable', outcome: 'success', actor: auditActor(instructor()) });
    expect(await audit.purgeOlderThan(new Date(Date.now() - 400 * 86_400_000))).toBe(1);
    expect((await audit.list({ limit: 10 })).map((e) => e.action)).toEqual(['enforcement.enable']);
  });
});
