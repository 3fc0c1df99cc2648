import type http from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Environment } from './student-environment.js';
import type { SyncStartResult } from './student-result.js';
import { START_STEPS, studentStart, type StepTimes } from './student-start.js';

/** Every student of a class starts within the same minute, `atOnce` at a time; no start may fail. */
export async function synchronizedStart(
  agent: http.Agent,
  env: Environment,
  takeUrl: string,
  students: number,
  atOnce: number,
  halfway?: () => Promise<void>,
  /** Runs after each successful start, with the start's number and its steps' times. */
  afterStart?: (student: number, steps: StepTimes) => Promise<void>,
  /** Who makes each start (the development LMS's user id); the course's first student makes every start unless given. */
  personOf?: (student: number) => number,
): Promise<SyncStartResult> {
  const names = ['theme-loader', 'requirement', 'detector', ...START_STEPS];
  const times = new Map(names.map((name) => [name, [] as number[]]));
  let failures = 0;
  let firstFailure: string | undefined;
  let next = 0;
  const before = await env.service.cpu();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(atOnce, students) }, async () => {
      while (next < students) {
        next += 1;
        const student = next;
        if (next === Math.ceil(students / 2)) await halfway?.();
        const steps: StepTimes = {};
        const who = personOf === undefined ? {} : { person: personOf(student) };
        const outcome = await studentStart(agent, env, takeUrl, { steps, pageLoad: true, ...who }).catch((error: unknown) => ({
          ok: false,
          failure: String(error),
        }));
        if (!outcome.ok) {
          failures += 1;
          firstFailure ??= outcome.failure;
        } else await afterStart?.(student, steps);
        for (const [name, ms] of Object.entries(steps)) times.get(name)!.push(ms);
      }
    }),
  );
  const durationMs = performance.now() - started;
  const after = await env.service.cpu();
  const at = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return {
    students,
    atOnce,
    failures,
    durationMs,
    steps: names.map((step) => {
      const sorted = times.get(step)!.sort((a, b) => a - b);
      return { step, p50: at(sorted, 0.5), p99: at(sorted, 0.99) };
    }),
    cpuMicrosPerStudent: (after.micros - before.micros) / students,
    ...(firstFailure === undefined ? {} : { firstFailure }),
  };
}
