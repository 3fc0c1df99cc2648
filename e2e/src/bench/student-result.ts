import type { LoadResult } from './load.js';
import type { MemoryPhase } from './server-process.js';

/** What the student benchmark is asked to run, and what it reports. */

export interface StudentBenchOptions {
  durationMs?: number;
  rounds?: number;
  connections?: number;
  /** Students of the synchronized start, and how many start at once. */
  students?: number;
  studentsAtOnce?: number;
  /** Writes a V8 CPU profile of the service process per phase of the run here. */
  profileDir?: string;
  /** Also measures the whole start cut after each step, for the server CPU of each step. */
  startSteps?: boolean;
}

export interface PathResult {
  key: string;
  label: string;
  result: LoadResult;
  /** Server CPU time per request (per start for the whole start), microseconds. */
  cpuMicros: number;
  /** The bare route's CPU per request over this path's, where a bare route compares. */
  cpuRatio?: number;
}

export interface SyncStartResult {
  students: number;
  atOnce: number;
  failures: number;
  durationMs: number;
  steps: { step: string; p99: number; p50: number }[];
  cpuMicrosPerStudent: number;
  firstFailure?: string;
}

export interface StudentBenchResult {
  paths: PathResult[];
  sync: SyncStartResult;
  storedConfigKeys: number;
  peakRssMb: number;
  /** The Node flags the service ran with. */
  serviceFlags: string[];
  /** With `startSteps`: the server CPU per start of each step of the whole start, microseconds. */
  startSteps?: { step: string; cpuMicros: number }[];
  /** The service's memory per phase of the run, in order (a path measured in several rounds is one phase). */
  memory: MemoryPhase[];
  logLines: number;
  /** The service's CPU time per second with no requests (timers, housekeeping), microseconds. */
  idleCpuMicrosPerSecond: number;
  /** Statements sent to PostgreSQL by one start, step by step (each a round trip). */
  statementsPerStart: { step: string; statements: number }[];
}
