import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAdminBed, type AdminBed } from './harness.js';
import { CALCULATOR, PRESETS, presetHelpers, type PresetBody } from './preset-helpers.js';

/**
 * Document 2's tool presets: stored per root account, at most 32, validated by the shared policy module, and every
 * change recorded in the audit trail with who made it.
 */
let t: AdminBed;
const p = presetHelpers(() => t);

beforeAll(async () => {
  t = await createAdminBed();
});
afterAll(() => t.close());
beforeEach(async () => {
  await t.reset();
  await t.grant();
  await t.connect('101', '102');
});

async function refused(method: 'POST' | 'PUT' | 'DELETE' | 'GET', url: string, body: unknown, status: number, code: string) {
  const response = await p.call(method, url, body);
  expect(response.statusCode, response.body).toBe(status);
  expect(response.json()).toMatchObject({ success: false, error_code: code });
  return response.json() as { message: string };
}

describe('creating and listing', () => {
  it('stores the tool in canonical form and lists the contract shape with zero counts', async () => {
    const created = await p.create();
    expect(created.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const listed = await p.list();
    expect(listed).toEqual([
      expect.objectContaining({
        id: created.id,
        name: 'Calculator',
        description: 'Allowed in every maths exam',
        tool: { label: 'Scientific calculator', url: 'https://calc.example.edu/app', resourceRules: [{ match: 'domain', value: 'cdn.calc.example.edu', broadDomainConfirmed: true }] },
        assignedCourseIds: [],
        assignedCourseCount: 0,
        pendingAssignmentCount: 0,
        failedAssignmentCount: 0,
      }),
    ]);
    const response = await p.call('GET', PRESETS);
    expect(response.json()).toMatchObject({ success: true });
    expect(response.headers['cache-control']).toBe('no-store');
  });

  it.each([
    ['an empty name', { name: '   ', tool: CALCULATOR }, ['name']],
    ['a name over 80 characters', { name: 'n'.repeat(81), tool: CALCULATOR }, ['name']],
    ['a description over 240 characters', { name: 'Calc', description: 'd'.repeat(241), tool: CALCULATOR }, ['description']],
    ['no tool', { name: 'Calc' }, ['tool']],
    ['an http launch URL', { name: 'Calc', tool: { ...CALCULATOR, url: 'http://calc.example.edu/app' } }, ['tool', 'url']],
    ['a wildcard resource rule', { name: 'Calc', tool: { ...CALCULATOR, resourceRules: [{ match: 'domain', value: '*.example.edu', broadDomainConfirmed: true }] } }, ['tool', 'resourceRules', 0, 'value']],
    ['a regex resource rule', { name: 'Calc', tool: { ...CALCULATOR, resourceRules: [{ match: 'exact', value: 'https://calc.example.edu/.*' }] } }, ['tool', 'resourceRules', 0, 'value']],
    ['an unconfirmed domain rule', { name: 'Calc', tool: { ...CALCULATOR, resourceRules: [{ match: 'domain', value: 'calc.example.edu' }] } }, ['tool', 'resourceRules', 0]],
  ])('refuses %s with INVALID_ADMIN_TOOL_PRESET and stores nothing', async (_name, body, path) => {
    const response = await p.call('POST', PRESETS, body);
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toMatchObject({ success: false, error_code: 'INVALID_ADMIN_TOOL_PRESET' });
    // The typed client gets the same code and the field the message belongs to.
    const trpc = await t.app.inject({
      method: 'POST',
      url: '/trpc/admin.toolPresets.create',
      headers: { cookie: t.session.cookie, 'x-exb-action-token': t.session.actionToken, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
    const error = (trpc.json() as { error: { data: { errorCode: string; path: unknown[] } } }).error;
    expect(error.data.errorCode).toBe('INVALID_ADMIN_TOOL_PRESET');
    expect(error.data.path.slice(0, path.length)).toEqual(path);
    expect(await p.list()).toEqual([]);
  });

  it('allows 32 presets per account: parallel creations never pass the limit', async () => {
    const responses = await Promise.all(
      Array.from({ length: 36 }, (_, index) => p.call('POST', PRESETS, { name: `Tool ${index}`, tool: CALCULATOR })),
    );
    const statuses = responses.map((response) => response.statusCode);
    expect(statuses.filter((status) => status === 200)).toHaveLength(32);
    const refusedOnes = responses.filter((response) => response.statusCode !== 200);
    expect(refusedOnes).toHaveLength(4);
    for (const response of refusedOnes) expect(response.json()).toMatchObject({ success: false, error_code: 'ADMIN_TOOL_PRESET_LIMIT' });
    expect(await p.list()).toHaveLength(32);
    const summary = (await p.call('GET', '/api/admin/summary')).json() as { summary: { toolPresetCount: number } };
    expect(summary.summary.toolPresetCount).toBe(32);
  });

  it('requires the action token before anything is stored', async () => {
    const response = await p.call('POST', PRESETS, { name: 'Calc', tool: CALCULATOR }, { actionToken: null });
    expect(response.statusCode).toBe(403);
    expect(await p.list()).toEqual([]);
  });
});

describe('updating and deleting', () => {
  it('answers ADMIN_TOOL_PRESET_NOT_FOUND for an invalid, unknown or foreign preset id', async () => {
    const preset = await p.create();
    for (const id of ['not-a-uuid', randomUUID(), `${preset.id}x`]) {
      await refused('PUT', `${PRESETS}/${id}`, { name: 'X', tool: CALCULATOR }, 404, 'ADMIN_TOOL_PRESET_NOT_FOUND');
      await refused('DELETE', `${PRESETS}/${id}`, undefined, 404, 'ADMIN_TOOL_PRESET_NOT_FOUND');
      await refused('PUT', `${PRESETS}/${id}/courses/101`, { assigned: true }, 404, 'ADMIN_TOOL_PRESET_NOT_FOUND');
      await refused('PUT', `${PRESETS}/${id}/assignments`, { assigned: true, all: true }, 404, 'ADMIN_TOOL_PRESET_NOT_FOUND');
      await refused('POST', `${PRESETS}/${id}/assignments/reconcile`, {}, 404, 'ADMIN_TOOL_PRESET_NOT_FOUND');
    }
    // Another root account's preset is never found, whatever its id.
    await t.sql('update admin_tool_preset set account_id = ? where id = ?', ['2', preset.id]);
    await refused('PUT', `${PRESETS}/${preset.id}`, { name: 'X', tool: CALCULATOR }, 404, 'ADMIN_TOOL_PRESET_NOT_FOUND');
  });

  it('updates with the same validation, leaving the stored preset untouched on refusal', async () => {
    const preset = await p.create();
    await refused('PUT', `${PRESETS}/${preset.id}`, { name: 'Calc', tool: { ...CALCULATOR, url: 'https://*.example.edu/' } }, 400, 'INVALID_ADMIN_TOOL_PRESET');
    expect((await p.find(preset.id)).tool.url).toBe('https://calc.example.edu/app');
    const response = await p.call('PUT', `${PRESETS}/${preset.id}`, { name: 'Graphing calculator', description: '', tool: { ...CALCULATOR, url: 'https://calc.example.edu/graph' } });
    expect(response.statusCode, response.body).toBe(200);
    expect(await p.find(preset.id)).toMatchObject({ name: 'Graphing calculator', description: '', tool: { url: 'https://calc.example.edu/graph' } });
  });

  it('refuses to delete while an assignment is desired, then removes the applied records and the preset', async () => {
    const preset = await p.create();
    expect((await p.call('PUT', `${PRESETS}/${preset.id}/courses/101`, { assigned: true })).statusCode).toBe(200);
    await refused('DELETE', `${PRESETS}/${preset.id}`, undefined, 409, 'ADMIN_TOOL_PRESET_ASSIGNED');
    expect(await p.list()).toHaveLength(1);

    expect((await p.call('PUT', `${PRESETS}/${preset.id}/courses/101`, { assigned: false })).statusCode).toBe(200);
    expect(await p.statuses(preset.id)).toEqual({ '101': 'applied' });
    const deleted = await p.call('DELETE', `${PRESETS}/${preset.id}`);
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect(deleted.json()).toMatchObject({ success: true, removedRecords: 1 });
    expect(await p.list()).toEqual([]);
    expect(await t.sql('select * from admin_tool_preset_assignment')).toEqual([]);
  });

  it('refuses to delete while a removal has not reached its course yet', async () => {
    const preset = await p.create();
    expect((await p.call('PUT', `${PRESETS}/${preset.id}/courses/101`, { assigned: true })).statusCode).toBe(200);
    t.bed.lms.faults.forbidden('GET /api/v1/courses/:id');
    expect((await p.call('PUT', `${PRESETS}/${preset.id}/courses/101`, { assigned: false })).statusCode).toBe(502);
    await refused('DELETE', `${PRESETS}/${preset.id}`, undefined, 409, 'ADMIN_TOOL_PRESET_ASSIGNED');
    // The tool is still in the course: deleting now would leave it there with no preset to remove it.
    expect((await p.catalog('101')).map((tool) => tool.presetId)).toEqual([preset.id]);
  });
});

describe('the audit trail', () => {
  it('records every change with who made it and when, and the dashboard reads the preset’s history', async () => {
    const preset = await p.create();
    await p.call('PUT', `${PRESETS}/${preset.id}`, { name: 'Calculator', description: 'Now graphing', tool: { ...CALCULATOR, url: 'https://calc.example.edu/graph' } });
    await p.call('PUT', `${PRESETS}/${preset.id}/courses/101`, { assigned: true });
    await p.rollout(preset.id, { assigned: true, all: true });
    await p.call('PUT', `${PRESETS}/${preset.id}/assignments`, { assigned: false, all: true });
    const { entries } = await p.trpcQuery<{ entries: { action: string; actorLmsUserId: string; occurredAt: string; details: Record<string, unknown>; courseId: string | null }[] }>(
      'admin.toolPresets.history',
      { presetId: preset.id },
    );
    expect(entries.map((entry) => entry.action)).toEqual([
      'tool-preset.rollout',
      'tool-preset.rollout',
      'tool-preset.assign',
      'tool-preset.update',
      'tool-preset.create',
    ]);
    expect(entries.every((entry) => entry.actorLmsUserId === '1' && Date.parse(entry.occurredAt) > Date.now() - 60_000)).toBe(true);
    expect(entries[3]!.details).toMatchObject({ changedFields: ['description', 'tool.url'], requeued: 0 });
    expect(entries[2]).toMatchObject({ courseId: '101', details: { assigned: true, status: 'applied' } });
    expect(entries[1]!.details).toMatchObject({ assigned: true, all: true, queued: 2, processed: 2, applied: 2, failed: 0, pending: 0 });

    await p.call('DELETE', `${PRESETS}/${preset.id}`);
    const after = await p.trpcQuery<{ entries: { action: string }[] }>('admin.toolPresets.history', { presetId: preset.id });
    expect(after.entries[0]!.action).toBe('tool-preset.delete');
    // Nothing secret-shaped in any detail.
    const rows = await t.sql<{ details: Record<string, unknown> }>('select details from audit_entry');
    expect(JSON.stringify(rows)).not.toMatch(/password|token|secret/i);
  });

  it('makes no change it cannot enter first, and answers a change that ran even when its entry stays pending', async () => {
    const preset = await p.create();
    await t.sql('delete from audit_entry');
    const refuse = async (operation: 'insert' | 'update') => {
      await t.sql(`create function refuse_audit_writes() returns trigger language plpgsql as $$ begin raise exception 'trail refused'; end $$`);
      await t.sql(`create trigger refuse_audit_writes before ${operation} on audit_entry for each row execute function refuse_audit_writes()`);
    };
    const allow = async () => {
      await t.sql('drop trigger refuse_audit_writes on audit_entry');
      await t.sql('drop function refuse_audit_writes()');
    };
    try {
      await refuse('insert');
      expect((await p.call('PUT', `${PRESETS}/${preset.id}/courses/101`, { assigned: true })).statusCode).toBe(500);
      expect((await p.call('DELETE', `${PRESETS}/${preset.id}`)).statusCode).toBe(500);
      expect((await p.catalog('101')).map((tool) => tool.presetId)).toEqual([]);
      expect((await p.list()).map((listed) => listed.id)).toEqual([preset.id]);
      expect(await t.sql('select 1 from audit_entry')).toEqual([]);
      await allow();

      await refuse('update');
      expect((await p.call('PUT', `${PRESETS}/${preset.id}/courses/101`, { assigned: true })).statusCode).toBe(200);
      expect((await p.catalog('101')).map((tool) => tool.presetId)).toEqual([preset.id]);
      expect(await t.sql('select action, outcome from audit_entry')).toEqual([{ action: 'tool-preset.assign', outcome: 'pending' }]);
    } finally {
      await t.sql('drop trigger if exists refuse_audit_writes on audit_entry');
      await t.sql('drop function if exists refuse_audit_writes()');
    }
  });
});
