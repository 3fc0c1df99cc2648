/**
 * Runs the hot-path benchmarks: `npm run bench` (everything) or `node e2e/dist/bench/run.js detector`.
 * BENCH_DURATION_MS, BENCH_ROUNDS and BENCH_CONNECTIONS tune every benchmark alike; BENCH_PROFILE_DIR writes a CPU profile
 * of the student benchmark's service process per phase there, BENCH_STUDENTS sizes its synchronized start, BENCH_START_STEPS=1
 * adds the server CPU of each step of its whole start, BENCH_HEAP_SNAPSHOT_DIR writes a heap snapshot of the service
 * at the end of every phase of the run (slow: for finding where memory goes, not for timing) and
 * BENCH_SERVICE_NODE_FLAGS passes further flags to the service's Node. BENCH_BOARDS sets how many exam-day boards the
 * `exam-day` benchmark keeps open during its synchronized start (BENCH_STUDENTS sizes it too).
 */
import { availableParallelism } from 'node:os';
import { benchAdmin, formatAdminBench } from './admin.js';
import { benchDetector, formatDetectorBench } from './detector.js';
import { benchExamDay, formatExamDayBench } from './exam-day.js';
import { benchPresets, formatPresetBench } from './presets.js';
import { benchStudent } from './student.js';
import { formatStudentBench } from './student-report.js';

interface Benchmark {
  description: string;
  run(settings: BenchSettings): Promise<string>;
}

interface BenchSettings {
  durationMs: number;
  rounds: number;
  connections: number;
}

const BENCHMARKS: Record<string, Benchmark> = {
  detector: {
    description: 'cached detector script vs a static string route of the same size',
    run: async (settings) => formatDetectorBench(await benchDetector(settings)),
  },
  admin: {
    description: 'administrator summary and course list pages at 2,000 courses and 20,000 assessments vs a bare route (PostgreSQL)',
    run: async (settings) => formatAdminBench(await benchAdmin(settings)),
  },
  presets: {
    description: 'a tool preset rolled out to 2,000 connected courses through reconcile passes, as the dashboard drives them (PostgreSQL, development LMS)',
    run: async () => formatPresetBench(await benchPresets()),
  },
  student: {
    description:
      'the service in production mode in its own process vs a bare Fastify server: requirement, scripts, proof, redemption, ' +
      'download, whole start, and a synchronized start of 3,000 students (PostgreSQL, development LMS over TLS)',
    run: async (settings) =>
      formatStudentBench(
        await benchStudent({
          ...settings,
          ...(process.env.BENCH_PROFILE_DIR ? { profileDir: process.env.BENCH_PROFILE_DIR } : {}),
          ...(process.env.BENCH_STUDENTS ? { students: positiveInteger('BENCH_STUDENTS', 3_000) } : {}),
          ...(process.env.BENCH_START_STEPS === '1' ? { startSteps: true } : {}),
        }),
      ),
  },
  'exam-day': {
    description:
      'the synchronized start of a class with live exam-day boards open (default 3,000 students, 20 boards): board update latency, start CPU, failures',
    run: async () =>
      formatExamDayBench(
        await benchExamDay({
          students: positiveInteger('BENCH_STUDENTS', 3_000),
          // 0 boards: the same start without boards, to compare the start's CPU with.
          boards: process.env.BENCH_BOARDS === '0' ? 0 : positiveInteger('BENCH_BOARDS', 20),
          ...(process.env.BENCH_PROFILE_DIR ? { profileDir: process.env.BENCH_PROFILE_DIR } : {}),
        }),
      ),
  },
};

function positiveInteger(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
}

async function main(): Promise<void> {
  const requested = process.argv.slice(2);
  const unknown = requested.filter((name) => !(name in BENCHMARKS));
  if (unknown.length > 0) {
    throw new Error(`unknown benchmark ${unknown.join(', ')}; available: ${Object.keys(BENCHMARKS).join(', ')}`);
  }
  const settings: BenchSettings = {
    durationMs: positiveInteger('BENCH_DURATION_MS', 3_000),
    rounds: positiveInteger('BENCH_ROUNDS', 3),
    connections: positiveInteger('BENCH_CONNECTIONS', 16),
  };
  console.log(
    `node ${process.version}, ${availableParallelism()} CPUs; ${settings.rounds} rounds of ${settings.durationMs} ms, ` +
      `${settings.connections} connections; load generator in the same process`,
  );
  for (const name of requested.length > 0 ? requested : Object.keys(BENCHMARKS)) {
    const benchmark = BENCHMARKS[name]!;
    console.log(`\n${name}: ${benchmark.description}`);
    console.log(await benchmark.run(settings));
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
