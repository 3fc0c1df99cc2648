import type { Database } from '@exb/server/db/orm.js';
import { ADMIN_TOOL_PRESET_ROUTE, ADMIN_TOOL_PRESETS_ROUTE, servicePath } from '@exb/shared/service-paths.js';
import type { MockLms } from '../lms/index.js';
import { startService } from './admin.js';

/**
 * A school tool preset rolled out to 2,000 connected courses, through the real routes on loopback with the development
 * LMS over HTTP, exactly as the dashboard drives it: one `PUT .../assignments` (which synchronizes a first batch),
 * then `POST .../assignments/reconcile` passes one after another until nothing is pending. Each course's
 * synchronization asks the LMS for the course with the administrator's grant and writes its catalog under the course
 * write lock. The result is checked in the database: every course's catalog holds the tool.
 */

export interface PresetBenchResult {
  courses: number;
  batchSize: number;
  totalMs: number;
  passes: number;
  passP50Ms: number;
  passMaxMs: number;
  failed: number;
}

const ACCOUNT = '1';
const COURSES = 2_000;
const FIRST_COURSE = 300_001;

async function seed(db: Database, lms: MockLms): Promise<void> {
  for (let index = 0; index < COURSES; index += 1) {
    const id = FIRST_COURSE + index;
    lms.state.addCourse({ id, name: `Course ${id}`, courseCode: `C-${id}`, accountId: Number(ACCOUNT) });
  }
  await db.orm.em.getConnection().execute(
    `insert into admin_course (course_id, account_id, name, course_code, origin)
     select (? + n)::text, ?, 'Course ' || (? + n), 'C-' || (? + n), 'admin' from generate_series(0, ? - 1) as n`,
    [FIRST_COURSE, ACCOUNT, FIRST_COURSE, FIRST_COURSE, COURSES],
    'run',
  );
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))] ?? 0;
}

export async function benchPresets(): Promise<PresetBenchResult> {
  let database: Database | undefined;
  const setup = await startService({
    seed: async (db, lms) => {
      database = db;
      await seed(db, lms);
    },
  });
  try {
    const send = async (method: string, path: string, body: unknown) => {
      const response = await fetch(new URL(path, setup.origin), {
        method,
        headers: {
          cookie: setup.cookie,
          'content-type': 'application/json',
          'sec-fetch-site': 'same-origin',
          'x-exb-action-token': setup.actionToken(),
        },
        body: JSON.stringify(body),
      });
      if (response.status !== 200) throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`);
      return response.json() as Promise<Record<string, unknown>>;
    };
    const created = (await send('POST', ADMIN_TOOL_PRESETS_ROUTE.path, {
      name: 'Scientific calculator',
      tool: { label: 'Calculator', url: 'https://calc.example.edu/app', resourceRules: [{ match: 'domain', value: 'cdn.calc.example.edu', broadDomainConfirmed: true }] },
    })) as { preset: { id: string } };
    const presetPath = servicePath(ADMIN_TOOL_PRESET_ROUTE, [created.preset.id]);

    const passTimes: number[] = [];
    const started = performance.now();
    let pass = performance.now();
    let body = (await send('PUT', `${presetPath}/assignments`, { assigned: true, all: true })) as { rollout: { processed: number; failed: number; pending: number } };
    passTimes.push(performance.now() - pass);
    const batchSize = body.rollout.processed;
    let failed = body.rollout.failed;
    while (body.rollout.pending > 0) {
      pass = performance.now();
      body = (await send('POST', `${presetPath}/assignments/reconcile`, {})) as typeof body;
      passTimes.push(performance.now() - pass);
      failed += body.rollout.failed;
    }
    const totalMs = performance.now() - started;

    const [applied] = await database!.orm.em.getConnection().execute<{ n: string }[]>(
      `select count(*) as n from course_defaults where external_tools @> ?::jsonb`,
      [JSON.stringify([{ presetId: created.preset.id, managedByAdmin: true }])],
    );
    if (Number(applied!.n) !== COURSES - failed) throw new Error(`only ${applied!.n} of ${COURSES} catalogs hold the tool`);
    return { courses: COURSES, batchSize, totalMs, passes: passTimes.length, passP50Ms: percentile(passTimes, 0.5), passMaxMs: Math.max(...passTimes), failed };
  } finally {
    await setup.close();
  }
}

export function formatPresetBench(result: PresetBenchResult): string {
  return [
    `rollout to ${result.courses.toLocaleString('en-US')} connected courses in ${result.passes} passes of ${result.batchSize}: ${(result.totalMs / 1000).toFixed(1)} s`,
    `  one pass: p50 ${result.passP50Ms.toFixed(0)} ms, max ${result.passMaxMs.toFixed(0)} ms; failed courses ${result.failed}`,
  ].join('\n');
}
