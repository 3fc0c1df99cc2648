import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { STEP_TIME_KEYS, type BoardEvent } from '@exb/shared/exam-day.js';
import { APPLICATION_SCOPES } from '@exb/shared/oauth-scopes.js';
import { stableUuid } from '../lms/ids.js';
import type { AuthorizedUser } from './server-process.js';
import { PROXY_HEADERS, COURSE, DOWNLOAD_QUIZ, STUDENT } from './student-fixture.js';
import { startEnvironment, type Environment } from './student-environment.js';
import { synchronizedStart } from './student-sync-start.js';
import type { SyncStartResult } from './student-result.js';

/**
 * Exam day, mixed: the synchronized start of a class while `boards` exam-day boards of its assessment are open, each
 * as the teacher's page holds it (its stream over server-sent events: the whole board, then what changed). Every start
 * is a different student of the course, so the board grows to the class as on the day, and its rows are the ones the
 * student flow's own statements write (no write is added for the bench). Reports the board update latency (from
 * sending a start's last request, the code's release, to each board's first event that shows that student's code
 * released), what the boards received, the start's CPU and failures.
 */
export interface ExamDayBenchOptions {
  students?: number;
  boards?: number;
  studentsAtOnce?: number;
  /** Writes the service's CPU profiles there: `service-setup` up to the start, `service-exam-day-start` of the start. */
  profileDir?: string;
}

export interface ExamDayBenchResult {
  boards: number;
  sync: SyncStartResult;
  /** Events the boards received: changes, and whole boards (the first of each, and after LMS reads). */
  events: number;
  wholeBoards: number;
  /** Bytes the boards received over the start, per board. */
  bytesPerBoard: number;
  latency: { p50: number; p99: number; max: number; missed: number };
  streamFailures: number;
}

/** The first id of the class the bench enrolls beside the development LMS's seeded users. */
const FIRST_CLASSMATE = 100_000;

/**
 * Enrolls `students` more students in the course, each as the course's first student is and with their LMS account
 * connected to the service, as a class is before its exam; names their ids.
 */
async function enrollClass(env: Environment, students: number): Promise<(student: number) => number> {
  const { lms } = env;
  const first = lms.state.users.get(Number(STUDENT.lmsUserId));
  const enrollment = lms.state.enrollmentsOf(Number(STUDENT.lmsUserId), Number(COURSE))[0];
  if (first === undefined || enrollment === undefined) throw new Error('the seed has no first student in the course');
  const authorized: AuthorizedUser[] = [];
  for (let student = 1; student <= students; student += 1) {
    const id = FIRST_CLASSMATE + student;
    const name = `Bench Student ${student}`;
    const ltiSubject = stableUuid(`user:${id}`);
    const sortableName = `Student ${student}, Bench`;
    lms.state.users.set(id, { ...first, id, name, sortableName, email: null, sisUserId: null, persona: undefined, label: undefined, ltiId: ltiSubject });
    lms.state.enrollments.set(id, { ...enrollment, id, userId: id });
    const issued = lms.oauth.issueToken({ user: id, scopes: APPLICATION_SCOPES, expiresIn: null });
    authorized.push({ lmsUserId: String(id), ltiSubject, accessToken: issued.accessToken, refreshToken: issued.refreshToken, name });
  }
  for (let offset = 0; offset < authorized.length; offset += 500) {
    await env.service.call({ type: 'authorize-students', students: authorized.slice(offset, offset + 500) });
  }
  return (student) => FIRST_CLASSMATE + student;
}

const at = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

interface OpenBoard {
  /** When this board first showed each student (LMS user id) with the code released. */
  released: Map<string, number>;
  events: number;
  wholeBoards: number;
  bytes: number;
  failed: string | null;
  close(): void;
}

/** Where a changed student's release time is among its times (`StudentChange`). */
const RELEASED = STEP_TIME_KEYS.indexOf('releasedAt');

/**
 * One open board: its stream, and when each student first showed released. The page decodes every changed row; the
 * bench reads only the release time, so as not to load the machine whose service CPU it measures.
 */
function openBoard(origin: string, cookie: string, onConnected: () => void): OpenBoard {
  const input = encodeURIComponent(JSON.stringify({ courseId: COURSE, quizId: DOWNLOAD_QUIZ }));
  const headers = { ...PROXY_HEADERS, cookie, accept: 'text/event-stream' };
  const board: OpenBoard = { released: new Map(), events: 0, wholeBoards: 0, bytes: 0, failed: null, close: () => undefined };
  const note = (released: Iterable<string>) => {
    const now = performance.now();
    for (const lmsUserId of released) if (!board.released.has(lmsUserId)) board.released.set(lmsUserId, now);
  };
  const url = new URL(`/trpc/instructor.enforcement.examDayChanges?input=${input}`, origin);
  const outgoing = http.get({ host: url.hostname, port: url.port, path: `${url.pathname}${url.search}`, headers }, (response) => {
    let buffer = '';
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => {
      board.bytes += Buffer.byteLength(chunk);
      buffer += chunk;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = /^event: ?(.*)$/m.exec(block)?.[1] ?? 'message';
        const data = /^data: ?(.*)$/m.exec(block)?.[1];
        if (event === 'connected') onConnected();
        else if (event === 'serialized-error') board.failed = block;
        else if (event === 'message' && data !== undefined) {
          const message = JSON.parse(data) as BoardEvent;
          board.events += 1;
          if (message.kind === 'board') {
            board.wholeBoards += 1;
            note(message.board.students.filter((student) => student.releasedAt !== null).map((student) => student.lmsUserId));
          } else note(message.students.filter((student) => student[4][RELEASED] !== null).map((student) => student[0]));
        }
      }
    });
  });
  outgoing.on('error', (error) => (board.failed ??= String(error)));
  board.close = () => outgoing.destroy();
  return board;
}

export async function benchExamDay(options: ExamDayBenchOptions = {}): Promise<ExamDayBenchResult> {
  const students = options.students ?? 3_000;
  const boardCount = options.boards ?? 20;
  const env = await startEnvironment(options.profileDir);
  const boards: OpenBoard[] = [];
  try {
    const cookie = await env.service.call<string>({ type: 'instructor-session' });
    let connected = 0;
    for (let index = 0; index < boardCount; index += 1) boards.push(openBoard(env.service.origin, cookie, () => (connected += 1)));
    const deadline = Date.now() + 10_000;
    while (connected < boardCount && boards.every((board) => board.failed === null)) {
      if (Date.now() > deadline) throw new Error(`only ${connected} of ${boardCount} boards connected`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const failed = boards.find((board) => board.failed !== null);
    if (failed !== undefined) throw new Error(`a board was refused: ${failed.failed}`);

    const agent = new http.Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 256 });
    const takeUrl = new URL(`/courses/${COURSE}/quizzes/202/take`, env.lmsUrl).href;
    const personOf = await enrollClass(env, students);
    if (options.profileDir !== undefined) await env.service.memory('setup');
    // Each student's LMS user id, with when the start's release was sent.
    const releases: [string, number][] = [];
    const sync = await synchronizedStart(
      agent,
      env,
      takeUrl,
      students,
      options.studentsAtOnce ?? 100,
      undefined,
      // The start's last request releases the code, and its write commits before the answer: from its sending on,
      // a board's next signal covers the whole start.
      async (student, steps) => void releases.push([String(personOf(student)), performance.now() - (steps.code ?? 0)]),
      personOf,
    );
    agent.destroy();
    if (options.profileDir !== undefined) await env.service.memory('exam-day-start');
    // The last coalesced changes.
    await new Promise((resolve) => setTimeout(resolve, 2_000));

    // Each start against each board: when the board first showed its release.
    const latencies: number[] = [];
    let missed = 0;
    for (const board of boards) {
      for (const [lmsUserId, sent] of releases) {
        const shown = board.released.get(lmsUserId);
        if (shown === undefined) missed += 1;
        else latencies.push(Math.max(0, shown - sent));
      }
    }
    latencies.sort((a, b) => a - b);
    return {
      boards: boardCount,
      sync,
      events: boards.reduce((sum, board) => sum + board.events, 0),
      wholeBoards: boards.reduce((sum, board) => sum + board.wholeBoards, 0),
      bytesPerBoard: boardCount === 0 ? 0 : boards.reduce((sum, board) => sum + board.bytes, 0) / boardCount,
      latency: { p50: at(latencies, 0.5), p99: at(latencies, 0.99), max: latencies.at(-1) ?? 0, missed },
      streamFailures: boards.filter((board) => board.failed !== null).length,
    };
  } finally {
    for (const board of boards) board.close();
    await env.close();
  }
}

/** The report, with its verdict: every update within 2 seconds at p99, no failed start, read or stream. */
export function formatExamDayBench(result: ExamDayBenchResult): string {
  const ms = (value: number) => `${value.toFixed(0)} ms`;
  const { sync, latency } = result;
  const ok = latency.p99 < 2_000 && latency.missed === 0 && sync.failures === 0 && result.streamFailures === 0;
  return [
    `exam day: synchronized start of ${sync.students} students (${sync.atOnce} at a time) with ${result.boards} live boards`,
    `  start: ${(sync.durationMs / 1000).toFixed(1)} s, ${sync.failures} failed${sync.firstFailure ? ` (first: ${sync.firstFailure})` : ''}, ` +
      `service CPU ${(sync.cpuMicrosPerStudent / 1000).toFixed(2)} ms per student (boards' streams included)`,
    `  board update latency (release sent → shown on the board): p50 ${ms(latency.p50)}, p99 ${ms(latency.p99)}, max ${ms(latency.max)}, missed ${latency.missed}`,
    `  events: ${result.events} (${result.boards === 0 ? 0 : (result.events / result.boards).toFixed(0)} per board, ${result.wholeBoards} whole boards), ` +
      `${(result.bytesPerBoard / 1024).toFixed(0)} KiB per board; streams failed: ${result.streamFailures}`,
    `SUMMARY exam-day students=${sync.students} boards=${result.boards} latencyP50Ms=${latency.p50.toFixed(0)} latencyP99Ms=${latency.p99.toFixed(0)} ` +
      `cpuMsPerStudent=${(sync.cpuMicrosPerStudent / 1000).toFixed(2)} failures=${sync.failures + result.streamFailures}`,
    `verdict: ${ok ? 'PASS' : 'FAIL'} (p99 below 2 s, nothing missed or failed)`,
  ].join('\n');
}
