import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { presetToolId } from '@exb/shared/admin-tool-presets.js';
import { createAdminBed, LMS_ROUTES, type AdminBed } from './harness.js';
import { CALCULATOR, PRESETS, presetHelpers } from './preset-helpers.js';

/**
 * The reconciled rollout of presets to connected courses: one course at once (`PUT .../courses/:courseId`), many in
 * bounded passes (`PUT .../assignments`, `POST .../reconcile`, the dashboard's catch-up pass), failures saved for
 * retry, and parallel passes that neither apply a course twice nor lose an assignment.
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
  await t.connect('101', '102', '105');
});

const assignOne = (presetId: string, courseId: string, assigned: boolean) => p.call('PUT', `${PRESETS}/${presetId}/courses/${courseId}`, { assigned });

/** Courses 1001.. added to the LMS in a sub-account of the root account and connected through the route. */
async function connectMany(count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, (_, index) => 1001 + index);
  for (const id of ids) t.bed.lms.state.addCourse({ id, name: `Course ${id}`, courseCode: `C${id}`, accountId: 2 });
  for (let start = 0; start < ids.length; start += 50) await t.connect(...ids.slice(start, start + 50).map(String));
  return ids.map(String);
}

describe('PUT /api/admin/tool-presets/:presetId/courses/:courseId', () => {
  it('adds the preset to the course catalog as a school-managed tool and answers applied', async () => {
    const preset = await p.create();
    const response = await assignOne(preset.id, '101', true);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ success: true, status: 'applied' });
    expect(await p.catalog('101')).toEqual([
      {
        id: presetToolId(preset.id),
        label: 'Scientific calculator',
        url: 'https://calc.example.edu/app',
        resourceRules: [{ match: 'domain', value: 'cdn.calc.example.edu', broadDomainConfirmed: true }],
        managedByAdmin: true,
        presetId: preset.id,
        enabled: true,
      },
    ]);
    expect(await p.find(preset.id)).toMatchObject({ assignedCourseIds: ['101'], assignedCourseCount: 1, pendingAssignmentCount: 0, failedAssignmentCount: 0 });
    const detail = (await p.call('GET', '/api/admin/courses/101')).json() as { course: { adminToolPresetIds: string[] } };
    expect(detail.course.adminToolPresetIds).toEqual([preset.id]);
    // The LMS confirmed the course with the administrator's grant before anything was written.
    expect(t.bed.lms.calls.last(LMS_ROUTES.getCourse)).toMatchObject({ userId: 1, path: '/api/v1/courses/101' });
  });

  it('refuses a course that is not connected, and a body without `assigned`', async () => {
    const preset = await p.create();
    for (const courseId of ['103', '104', 'abc', '0101']) {
      const response = await assignOne(preset.id, courseId, true);
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ success: false, error_code: 'ADMIN_COURSE_NOT_CONNECTED' });
    }
    const missing = await p.call('PUT', `${PRESETS}/${preset.id}/courses/101`, {});
    expect(missing.statusCode).toBe(400);
    expect(await p.statuses(preset.id)).toEqual({});
  });

  it('saves a failed synchronization with 502, leaves the course as it was, and a later reconcile applies it', async () => {
    const preset = await p.create();
    t.bed.lms.faults.forbidden(LMS_ROUTES.getCourse);
    const failed = await assignOne(preset.id, '101', true);
    expect(failed.statusCode, failed.body).toBe(502);
    expect(failed.json()).toMatchObject({ success: false, error_code: 'ADMIN_TOOL_PRESET_ROLLOUT_FAILED' });
    expect(await p.catalog('101')).toEqual([]);
    expect(await p.find(preset.id)).toMatchObject({ assignedCourseIds: ['101'], pendingAssignmentCount: 0, failedAssignmentCount: 1 });
    const failures = await p.trpcQuery<{ courses: { courseId: string; name: string; errorCode: string }[] }>('admin.toolPresets.failures', { presetId: preset.id });
    expect(failures.courses).toEqual([expect.objectContaining({ courseId: '101', name: 'Biology 101', errorCode: expect.stringMatching(/^LMS_/) })]);

    // A plain pass takes pending rows only; retrying failed ones is asked for.
    expect((await p.reconcile(preset.id)).rollout).toEqual({ processed: 0, applied: 0, failed: 0, pending: 0 });
    const retried = await p.reconcile(preset.id, { retryFailed: true });
    expect(retried).toEqual({
      success: true,
      preset: { id: preset.id, pendingAssignmentCount: 0, failedAssignmentCount: 0 },
      rollout: { processed: 1, applied: 1, failed: 0, pending: 0 },
    });
    expect((await p.catalog('101')).map((tool) => tool.presetId)).toEqual([preset.id]);
  });

  it('fails, without waiting, while another course write holds the lock or the course is being reset', async () => {
    const preset = await p.create();
    for (const lock of ['course-write:101', 'course-reset:101']) {
      await t.sql(`insert into lease (name, owner, expires_at) values (?, 'someone-else', now() + interval '1 minute')`, [lock]);
      const started = Date.now();
      const response = await assignOne(preset.id, '101', true);
      expect(response.statusCode).toBe(502);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(await p.statuses(preset.id)).toEqual({ '101': 'failed' });
      expect(await p.catalog('101')).toEqual([]);
      await t.sql('delete from lease where name = ?', [lock]);
    }
    const failures = await p.trpcQuery<{ courses: { errorCode: string }[] }>('admin.toolPresets.failures', { presetId: preset.id });
    expect(failures.courses[0]!.errorCode).toBe('COURSE_RESET_IN_PROGRESS');
  });

  it('removes an unassigned preset’s tool from the course and from every assessment selection', async () => {
    const preset = await p.create();
    await assignOne(preset.id, '101', true);
    const toolId = presetToolId(preset.id);
    const defaults = (await t.settings.loadCourseDefaults('101'))!;
    await t.settings.saveCourseDefaults('101', {
      ...defaults,
      externalTools: [...defaults.externalTools, { id: 'teacher-notes', label: 'Notes', url: 'https://notes.example.edu/', resourceRules: [{ match: 'domain', value: 'notes.example.edu', broadDomainConfirmed: true }], managedByAdmin: false, enabled: true }],
    });
    await t.sql(
      `insert into assessment_setting (course_id, content_id, external_tool_ids) values ('101', 'classicquiz_201', ?::jsonb), ('101', 'classicquiz_202', ?::jsonb)`,
      [JSON.stringify([toolId, 'teacher-notes']), JSON.stringify(['teacher-notes'])],
    );
    const response = await assignOne(preset.id, '101', false);
    expect(response.statusCode, response.body).toBe(200);
    expect((await p.catalog('101')).map((tool) => tool.id)).toEqual(['teacher-notes']);
    const selections = await t.sql<{ content_id: string; external_tool_ids: string[] }>(
      `select content_id, external_tool_ids from assessment_setting where course_id = '101' order by content_id`,
    );
    expect(selections).toEqual([
      { content_id: 'classicquiz_201', external_tool_ids: ['teacher-notes'] },
      { content_id: 'classicquiz_202', external_tool_ids: ['teacher-notes'] },
    ]);
    expect(await p.find(preset.id)).toMatchObject({ assignedCourseIds: [], assignedCourseCount: 0 });
  });
});

describe('PUT /api/admin/tool-presets/:presetId/assignments', () => {
  it('queues every connected course and synchronizes a first batch at once', async () => {
    const preset = await p.create();
    const body = await p.rollout(preset.id, { assigned: true, all: true, courseIds: ['999'] });
    expect(body).toEqual({
      success: true,
      queuedCount: 3,
      preset: { id: preset.id, pendingAssignmentCount: 0 },
      rollout: { processed: 3, applied: 3, failed: 0, pending: 0 },
    });
    for (const course of ['101', '102', '105']) expect((await p.catalog(course)).map((tool) => tool.presetId)).toEqual([preset.id]);
  });

  it('synchronizes no more than ADMIN_RECONCILE_BATCH_SIZE courses per pass', async () => {
    const small = await t.appWith((config) => ({ ...config, admin: { ...config.admin, reconcileBatchSize: 2 } }));
    const preset = await p.create();
    const first = await p.rollout(preset.id, { assigned: true, all: false, courseIds: ['101', 102, '105'] }, { app: small });
    expect(first).toMatchObject({ queuedCount: 3, preset: { pendingAssignmentCount: 1 }, rollout: { processed: 2, applied: 2, failed: 0, pending: 1 } });
    expect((await p.find(preset.id)).pendingAssignmentCount).toBe(1);
    const second = await p.reconcile(preset.id, {}, { app: small });
    expect(second.rollout).toEqual({ processed: 1, applied: 1, failed: 0, pending: 0 });
  });

  it('answers ADMIN_TOOL_PRESET_ROLLOUT_LIMIT above 2,000 courses, and refuses invalid or unconnected ids, queuing nothing', async () => {
    const preset = await p.create();
    const tooMany = Array.from({ length: 2_001 }, (_, index) => String(5000 + index));
    let response = await p.call('PUT', `${PRESETS}/${preset.id}/assignments`, { assigned: true, all: false, courseIds: tooMany });
    expect(response.statusCode).toBe(409);
    expect(response.json()).toMatchObject({ success: false, error_code: 'ADMIN_TOOL_PRESET_ROLLOUT_LIMIT' });

    response = await p.call('PUT', `${PRESETS}/${preset.id}/assignments`, { assigned: true, all: false, courseIds: ['101', 'x'] });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ error_code: 'INVALID_ADMIN_COURSE_IDS' });
    response = await p.call('PUT', `${PRESETS}/${preset.id}/assignments`, { assigned: true, all: false });
    expect(response.statusCode).toBe(400);
    response = await p.call('PUT', `${PRESETS}/${preset.id}/assignments`, { assigned: true, all: false, courseIds: ['101', '103'] });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ error_code: 'ADMIN_COURSE_NOT_CONNECTED' });
    response = await p.call('PUT', `${PRESETS}/${preset.id}/assignments`, { all: true });
    expect(response.statusCode).toBe(400);
    expect(await p.statuses(preset.id)).toEqual({});

    // `all` counts the account's connected courses.
    await t.sql(
      `insert into admin_course (course_id, account_id, name, origin) select (200000 + n)::text, '1', 'Seeded ' || n, 'admin' from generate_series(1, 1998) n`,
    );
    response = await p.call('PUT', `${PRESETS}/${preset.id}/assignments`, { assigned: true, all: true });
    expect(response.statusCode).toBe(409);
    expect(response.json()).toMatchObject({ error_code: 'ADMIN_TOOL_PRESET_ROLLOUT_LIMIT' });
    expect(await p.statuses(preset.id)).toEqual({});
  });

  it('a preset changed during a rollout sends its courses back to pending, and the next pass applies the new definition', async () => {
    const small = await t.appWith((config) => ({ ...config, admin: { ...config.admin, reconcileBatchSize: 2 } }));
    const preset = await p.create();
    await p.rollout(preset.id, { assigned: true, all: true }, { app: small });
    expect(Object.values(await p.statuses(preset.id)).sort()).toEqual(['applied', 'applied', 'pending']);

    const update = await p.call('PUT', `${PRESETS}/${preset.id}`, { name: 'Calculator', tool: { ...CALCULATOR, url: 'https://calc.example.edu/v2' } });
    expect(update.statusCode).toBe(200);
    expect(update.json()).toMatchObject({ preset: { pendingAssignmentCount: 3 } });
    let pass = await p.reconcile(preset.id, {}, { app: small });
    while (pass.rollout.pending > 0) pass = await p.reconcile(preset.id, {}, { app: small });
    for (const course of ['101', '102', '105']) expect((await p.catalog(course))[0]!.url).toBe('https://calc.example.edu/v2');
  });
});

describe('reconciliation under parallel requests', () => {
  it('never applies one course twice nor loses an assignment, across instances and the catch-up’s background pass', async () => {
    const courses = await connectMany(40);
    const other = await t.appWith((config) => config);
    const calculator = await p.create();
    const notes = await p.create('Notes', { label: 'Notes', url: 'https://notes.example.edu/pad' });
    // Queue everything for the calculator; its first batch runs at once.
    const queued = await p.rollout(calculator.id, { assigned: true, all: true });
    expect(queued.queuedCount).toBe(43);
    t.bed.lms.calls.clear();

    const reconcile = (app?: typeof other) =>
      t.request('POST', `${PRESETS}/${calculator.id}/assignments/reconcile`, { body: {}, ...(app ? { app } : {}) });
    let processed = 0;
    let busy = 0;
    for (let round = 0; round < 20; round += 1) {
      // Real parallel requests: passes of the same preset on two instances, a second preset's rollout over the same
      // courses, and the dashboard's catch-up that starts the account-wide background pass.
      const responses = await Promise.all([
        reconcile(),
        reconcile(other),
        reconcile(),
        t.request('POST', '/api/admin/catch-up'),
        round === 1 ? t.request('PUT', `${PRESETS}/${notes.id}/assignments`, { body: { assigned: true, all: false, courseIds: courses.slice(0, 10) } }) : null,
      ]);
      for (const response of responses.slice(0, 3)) {
        if (response!.statusCode === 200) processed += (response!.json() as { rollout: { processed: number } }).rollout.processed;
        else {
          expect(response!.statusCode).toBe(409);
          expect(response!.json()).toMatchObject({ error_code: 'ADMIN_TOOL_PRESET_BUSY' });
          busy += 1;
        }
      }
      await t.idle();
      const [left] = await t.sql<{ n: string }>(`select count(*) as n from admin_tool_preset_assignment where status <> 'applied'`);
      if (Number(left!.n) === 0) break;
    }
    expect(processed).toBeGreaterThan(0);
    expect(busy).toBeGreaterThan(0);
    expect(await t.sql(`select preset_id, course_id, status from admin_tool_preset_assignment where status <> 'applied'`)).toEqual([]);
    // Each synchronization asks the LMS once: a course applied twice would show up as a second call.
    const perCourse = new Map<string, number>();
    for (const call of t.bed.lms.calls.filter(LMS_ROUTES.getCourse)) perCourse.set(call.params.id!, (perCourse.get(call.params.id!) ?? 0) + 1);
    expect([...perCourse.values()].every((count) => count <= 2)).toBe(true);
    expect([...perCourse.entries()].filter(([, count]) => count > 1).map(([id]) => id).every((id) => courses.slice(0, 10).includes(id))).toBe(true);
    // Nothing lost: every course holds the calculator, the first ten also the notes, each once.
    for (const course of [...courses, '101', '102', '105']) {
      const presetIds = (await p.catalog(course)).map((tool) => tool.presetId).sort();
      expect(presetIds).toEqual(courses.slice(0, 10).includes(course) ? [calculator.id, notes.id].sort() : [calculator.id]);
    }
  });
});

describe('the summary', () => {
  it('counts presets and pending and failed assignments; a catch-up reconciles at most one batch in the background', async () => {
    const single = await t.appWith((config) => ({ ...config, admin: { ...config.admin, reconcileBatchSize: 1 } }));
    const preset = await p.create();
    await p.rollout(preset.id, { assigned: true, all: true }, { app: single });
    t.bed.lms.faults.forbidden(LMS_ROUTES.getCourse);
    await p.rollout((await p.create('Other', { label: 'Dictionary', url: 'https://dict.example.edu/lookup' })).id, { assigned: true, all: false, courseIds: ['101'] }, { app: single });
    const summary = async () => ((await t.request('GET', '/api/admin/summary', { app: single })).json() as { summary: Record<string, number> }).summary;
    const catchUp = async () => expect((await t.request('POST', '/api/admin/catch-up', { app: single })).statusCode).toBe(200);
    expect(await summary()).toMatchObject({ toolPresetCount: 2, pendingPresetAssignmentCount: 2, failedPresetAssignmentCount: 1 });
    await t.idle();
    // The summary itself reconciles nothing.
    expect(await summary()).toMatchObject({ pendingPresetAssignmentCount: 2 });
    // The dashboard's catch-up starts one background pass of one course.
    await catchUp();
    await t.idle();
    expect(await summary()).toMatchObject({ pendingPresetAssignmentCount: 1 });
    await catchUp();
    await t.idle();
    expect(await summary()).toMatchObject({ pendingPresetAssignmentCount: 0, failedPresetAssignmentCount: 1 });
  });
});
