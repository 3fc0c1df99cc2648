import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyBoardChanges, boardEventSchema, decodeStudentChange, type Board, type BoardEvent, type BoardStudent } from '@exb/shared/exam-day.js';
import { buildApp } from '../../src/app.js';
import { EXAM_DAY_COALESCE_MS } from '../../src/domain/exam-day/changes.js';
import { openDatabase, type Database } from '../../src/db/orm.js';
import { createLogger } from '../../src/logger.js';
import { deriveKey } from '../../src/security/derived-keys.js';
import { SessionTokens } from '../../src/security/session-token.js';
import { FAST_OAUTH } from '../support/oauth-testbed.js';
import { instructor, sessionFor, student } from '../support/sessions.js';
import { openSse, type SseStream } from '../support/sse.js';
import { COURSE, createInstructorBed, type InstructorBed } from '../instructor/harness.js';

/**
 * The exam-day board's live signal: the trigger's notifications, the listener, the per-assessment coalescing and the
 * subscription over server-sent events, across two instances of the service on one database, each with its own pool
 * and its own listener. Rows are written with SQL into `exb_exam_day_student`, as the student flow's statements write it.
 */
let t: InstructorBed;
let other: { app: FastifyInstance; db: Database; url: string };
let quizId: string;
let secondQuizId: string;

beforeAll(async () => {
  t = await createInstructorBed();
  await t.grant();
  await t.discover();
  const ids = await t.sql<{ content_id: string }>('select content_id from assessment where course_id = ? order by content_id', [COURSE]);
  quizId = ids[0]!.content_id;
  secondQuizId = ids[1]!.content_id;
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  // The second instance: its own pool and listener on the same database, as another process would have.
  const logger = createLogger('silent');
  const db = await openDatabase({ databaseUrl: t.bed.t.databaseUrl, dataDir: t.bed.t.dataDir, logger, poolSize: 3 });
  const app = await buildApp({ config: t.bed.t.config, logger, db, oauth: FAST_OAUTH });
  await app.listen({ port: 0, host: '127.0.0.1' });
  other = { app, db, url: origin(app) };
});
afterAll(async () => {
  await other?.app.close();
  await other?.db.close();
  await t?.close();
});

function origin(app: FastifyInstance): string {
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('not listening');
  return `http://127.0.0.1:${address.port}`;
}

const streamPath = (input: Record<string, string>) =>
  `/trpc/instructor.enforcement.examDayChanges?input=${encodeURIComponent(JSON.stringify(input))}`;

/** An open board's stream, past its whole board (`first`). */
async function subscribe(
  base: string,
  cookie: string | null,
  input: Record<string, string> = { courseId: COURSE, quizId },
): Promise<SseStream & { first: Board }> {
  const stream = await openSse(`${base}${streamPath(input)}`, cookie === null ? {} : { cookie });
  expect(stream.status).toBe(200);
  expect((await stream.next()).event).toBe('connected');
  const first = await nextEvent(stream);
  if (first.kind !== 'board') throw new Error(`the stream began with ${first.kind}`);
  return Object.assign(stream, { first: first.board });
}

async function nextEvent(stream: SseStream, timeoutMs?: number): Promise<BoardEvent> {
  return boardEventSchema.parse(JSON.parse((await stream.next(timeoutMs)).data));
}

/** The changed students an event carries, as the board shows them. */
function changedStudents(event: BoardEvent): BoardStudent[] {
  if (event.kind !== 'changes') throw new Error(`expected changes, got ${event.kind}`);
  return event.students.map(decodeStudentChange);
}

const changedIds = (event: BoardEvent) => changedStudents(event).map((student) => student.lmsUserId).sort();

/** The board a page shows after `events`, from the stream's whole board. */
function applied(first: Board, events: BoardEvent[]): Board {
  return events.reduce(
    (shown, event) => (event.kind === 'changes' ? applyBoardChanges(shown, { generatedAt: event.generatedAt, students: changedStudents(event) }) : event.board),
    first,
  );
}

async function writeStep(contentId: string, lmsUserId: string, sql = (q: string, p: unknown[]) => t.sql(q, p)) {
  await sql(
    `insert into exb_exam_day_student (course_id, content_id, lms_user_id, launched_at, downloads, last_download_at)
     values (?, ?, ?, now(), 1, now())
     on conflict (course_id, content_id, lms_user_id) do update set downloads = exb_exam_day_student.downloads + 1,
       last_download_at = now(), updated_at = now()`,
    [COURSE, contentId, lmsUserId],
  );
}

describe('the notification trigger', () => {
  it('notifies once per assessment a statement touched, after its transaction commits', async () => {
    const listener = new pg.Client({ connectionString: t.bed.t.databaseUrl });
    await listener.connect();
    const payloads: string[] = [];
    listener.on('notification', (message) => payloads.push(message.payload ?? ''));
    await listener.query('listen exb_exam_day');
    try {
      await t.sql(
        `insert into exb_exam_day_student (course_id, content_id, lms_user_id) values (?, ?, 'a'), (?, ?, 'b'), (?, ?, 'c')`,
        [COURSE, quizId, COURSE, quizId, COURSE, secondQuizId],
      );
      await t.sql('update exb_exam_day_student set downloads = downloads + 1 where course_id = ?', [COURSE]);
      // A statement that writes nothing sends nothing.
      await t.sql('update exb_exam_day_student set downloads = 0 where course_id = ?', ['999']);
      await writeStep(quizId, 'a');
      await new Promise((resolve) => setTimeout(resolve, 200));
      const one = JSON.stringify([COURSE, quizId]);
      const two = JSON.stringify([COURSE, secondQuizId]);
      const normalized = payloads.map((payload) => JSON.stringify(JSON.parse(payload)));
      expect(normalized.slice(0, 2).sort()).toEqual([one, two].sort());
      expect(normalized.slice(2, 4).sort()).toEqual([one, two].sort());
      expect(normalized.slice(4)).toEqual([one]);

      // Inside a transaction nothing is sent before the commit, and nothing at all after a rollback.
      payloads.length = 0;
      const client = await t.bed.t.db.pool.connect();
      try {
        await client.query('begin');
        await client.query(`update exb_exam_day_student set downloads = 5 where course_id = $1`, [COURSE]);
        await new Promise((resolve) => setTimeout(resolve, 100));
        expect(payloads).toEqual([]);
        await client.query('rollback');
      } finally {
        client.release();
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(payloads).toEqual([]);
    } finally {
      await listener.end();
      await t.sql('delete from exb_exam_day_student');
    }
  });
});

describe('the board’s live signal', () => {
  it('reaches a board open on the other instance within 2 seconds of a write through this one', async () => {
    const stream = await subscribe(other.url, t.cookie);
    try {
      const written = Date.now();
      await writeStep(quizId, '501');
      const event = await nextEvent(stream, 2_000);
      expect(Date.now() - written).toBeLessThan(2_000);
      expect(changedIds(event)).toEqual(['501']);
      expect(changedStudents(event)).toMatchObject([{ lmsUserId: '501', downloads: 1, state: 'downloaded-not-proven' }]);
      // Another assessment's writes do not reach this board.
      await writeStep(secondQuizId, '502');
      expect(await stream.collect(600)).toEqual([]);
    } finally {
      stream.close();
    }
  });

  it('writes the other way round as well, and reaches every board of the assessment on both instances', async () => {
    const here = await subscribe(origin(t.app), t.cookie);
    const there = await subscribe(other.url, t.cookie);
    try {
      await writeStep(quizId, '503', (q, p) => other.db.orm.em.getConnection().execute(q, p));
      for (const event of await Promise.all([nextEvent(here, 2_000), nextEvent(there, 2_000)])) expect(changedIds(event)).toEqual(['503']);
    } finally {
      here.close();
      there.close();
    }
  });

  it('coalesces a synchronized start into at most one event per assessment per window, and misses no student', async () => {
    const stream = await subscribe(other.url, t.cookie);
    try {
      // 200 statements as fast as the pool takes them, each a notification of its own.
      const started = Date.now();
      const ids = Array.from({ length: 200 }, (_, index) => `6${index}`);
      await Promise.all(ids.map((id) => writeStep(quizId, id)));
      const took = Date.now() - started;
      const wait = EXAM_DAY_COALESCE_MS + 700;
      const events = (await stream.collect(wait)).map((event) => boardEventSchema.parse(JSON.parse(event.data)));
      expect(events.length).toBeGreaterThanOrEqual(1);
      expect(events.length).toBeLessThanOrEqual(Math.ceil((took + wait) / EXAM_DAY_COALESCE_MS) + 1);
      // Each event names only what changed, and together they name every student written.
      expect(new Set(events.flatMap(changedIds))).toEqual(new Set(ids));
      const board = applied(stream.first, events);
      expect(board.counts['downloaded-not-proven']).toBe(stream.first.counts['downloaded-not-proven'] + 200);
    } finally {
      stream.close();
    }
  });

  it('sends a change whose transaction commits after later ones were sent', async () => {
    const stream = await subscribe(other.url, t.cookie);
    const late = await t.bed.t.db.pool.connect();
    try {
      // A transaction writes a student and stays open while another student's write commits and is sent.
      await late.query('begin');
      await late.query(
        `insert into exb_exam_day_student (course_id, content_id, lms_user_id, downloads, last_download_at) values ($1, $2, '801', 1, now())`,
        [COURSE, quizId],
      );
      await writeStep(quizId, '802');
      expect(changedIds(await nextEvent(stream, 2_000))).toEqual(['802']);
      await late.query('commit');
      expect(changedIds(await nextEvent(stream, 2_000))).toEqual(['801']);
    } finally {
      late.release();
      stream.close();
    }
  });

  it('ends where a whole board read at the end stands, for a board opened in the middle of a burst', async () => {
    const ids = Array.from({ length: 40 }, (_, index) => `9${index}`);
    const writing = (async () => {
      for (let round = 0; round < 6; round += 1) await Promise.all(ids.map((id) => writeStep(quizId, id)));
    })();
    const stream = await subscribe(other.url, t.cookie);
    try {
      await writing;
      const events = (await stream.collect(EXAM_DAY_COALESCE_MS + 1_000)).map((event) => boardEventSchema.parse(JSON.parse(event.data)));
      const live = applied(stream.first, events);
      const again = await subscribe(other.url, t.cookie);
      again.close();
      const whole = again.first;
      const rows = (board: Board) => board.students.filter((student) => ids.includes(student.lmsUserId)).map(({ lmsUserId, downloads, version }) => ({ lmsUserId, downloads, version }));
      expect(rows(live)).toEqual(rows(whole));
      expect(rows(live).every((row) => row.downloads === 6)).toBe(true);
    } finally {
      stream.close();
    }
  });

  it('takes the session token in the query of the stream, which an EventSource cannot send as a header', async () => {
    const tokens = new SessionTokens(deriveKey(t.bed.t.config.secrets.appSecret, 'session-token'));
    const token = tokens.issue(sessionFor(t.app, instructor()).session);
    const stream = await openSse(`${other.url}${streamPath({ courseId: COURSE, quizId })}&session_token=${token}`);
    try {
      expect((await stream.next()).event).toBe('connected');
      expect((await nextEvent(stream)).kind).toBe('board');
      await writeStep(quizId, '504');
      expect(changedIds(await nextEvent(stream, 2_000))).toEqual(['504']);
    } finally {
      stream.close();
    }
    // Only on the board's own addresses: elsewhere a token in the query gives no session.
    const elsewhere = await t.request('GET', `/api/quizzes?session_token=${token}`, { cookie: null });
    expect(elsewhere.statusCode).toBe(401);
  });

  it('refuses another course’s teacher, a student and no session before the stream opens', async () => {
    const otherTeacher = sessionFor(t.app, instructor({ courseId: '102' })).cookie;
    const cases: [string | null, Record<string, string>, string][] = [
      [otherTeacher, { courseId: COURSE, quizId }, 'COURSE_MISMATCH'],
      [sessionFor(t.app, student()).cookie, { courseId: COURSE, quizId }, 'INSTRUCTOR_REQUIRED'],
      [null, { courseId: COURSE, quizId }, 'UNAUTHORIZED'],
      [t.cookie, { courseId: COURSE, quizId: 'quiz:99999' }, 'ASSESSMENT_NOT_FOUND'],
    ];
    for (const [cookie, input, code] of cases) {
      const stream = await openSse(`${other.url}${streamPath(input)}`, cookie === null ? {} : { cookie });
      try {
        const events = [await stream.next(), await stream.next()];
        expect(events[0]!.event).toBe('connected');
        expect(events[1]!.event).toBe('serialized-error');
        expect(JSON.parse(events[1]!.data).data.errorCode).toBe(code);
      } finally {
        stream.close();
      }
    }
    expect(other.app.server.listening).toBe(true);
  });

  it('outlives the request deadline, which guards a request only until it has arrived', async () => {
    const logger = createLogger('silent');
    const db = await openDatabase({ databaseUrl: t.bed.t.databaseUrl, dataDir: t.bed.t.dataDir, logger, poolSize: 2 });
    const app = await buildApp({ config: t.bed.t.config, logger, db, oauth: FAST_OAUTH, timeouts: { requestMs: 300 } });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const stream = await subscribe(origin(app), t.cookie);
    try {
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      await writeStep(quizId, '506');
      expect(changedIds(await nextEvent(stream, 2_000))).toEqual(['506']);
    } finally {
      stream.close();
      await app.close();
      await db.close();
    }
  });

  it('ends open streams when the service closes, so they do not hold it up', async () => {
    const logger = createLogger('silent');
    const db = await openDatabase({ databaseUrl: t.bed.t.databaseUrl, dataDir: t.bed.t.dataDir, logger, poolSize: 2 });
    const app = await buildApp({ config: t.bed.t.config, logger, db, oauth: FAST_OAUTH });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const stream = await subscribe(origin(app), t.cookie);
    const started = Date.now();
    await app.close();
    await db.close();
    expect(Date.now() - started).toBeLessThan(3_000);
    stream.close();
  });
});

describe('the listener', () => {
  it('comes back after its connection is ended, signals open boards, and the service answers meanwhile', async () => {
    const stream = await subscribe(other.url, t.cookie);
    try {
      const listeners = () =>
        t.sql<{ pid: number }>(`select pid from pg_stat_activity where datname = current_database() and query = 'listen exb_exam_day'`);
      // Every instance on the database listens on one connection of its own (the bed runs two, plus the other one).
      const instances = (await listeners()).length;
      expect(instances).toBe(3);
      await t.sql(`select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and query = 'listen exb_exam_day'`);
      // While the listener is away a student starts; once it is back, the board gets what it missed.
      await writeStep(quizId, '507');
      expect(changedIds(await nextEvent(stream, 5_000))).toContain('507');
      expect((await t.request('GET', `/trpc/instructor.enforcement.examDayBoard?input=${encodeURIComponent(JSON.stringify({ courseId: COURSE, quizId }))}`)).statusCode).toBe(200);
      await expect.poll(async () => (await listeners()).length, { timeout: 10_000 }).toBe(instances);
      await writeStep(quizId, '505');
      expect(changedIds(await nextEvent(stream, 2_000))).toEqual(['505']);
    } finally {
      stream.close();
    }
  });
});

describe('the board as CSV', () => {
  it('lists every student with state and times, quoted and defused, for the course’s instructor only', async () => {
    await t.sql(
      `insert into exb_exam_day_student (course_id, content_id, lms_user_id, display_name, downloads, last_download_at, proven_at)
       values (?, ?, '700', '=HYPERLINK("x")', 1, now(), now())
       on conflict (course_id, content_id, lms_user_id) do nothing`,
      [COURSE, quizId],
    );
    const url = `/api/quizzes/${COURSE}/${encodeURIComponent(quizId)}/exb/board.csv`;
    const response = await t.request('GET', url);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(response.headers['content-disposition']).toMatch(/^attachment; filename="exam-day-101-[A-Za-z0-9_-]+-\d{4}-\d{2}-\d{2}\.csv"$/);
    const lines = response.body.trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      'lms_user_id,name,state,launched_at,granted_at,downloads,last_download_at,proven_at,released_at,attempt_started_at,attempt_submitted_at,exited_at,readmitted_at,exempted_at',
    );
    expect(lines.find((line) => line.startsWith('700,'))).toMatch(/^700,"'=HYPERLINK\(""x""\)",proven-not-released,,,1,\d{4}-/);

    const refused = await t.request('GET', url, { cookie: sessionFor(t.app, instructor({ courseId: '102' })).cookie });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error_code).toBe('COURSE_MISMATCH');
    expect((await t.request('GET', url, { cookie: sessionFor(t.app, student()).cookie })).json().error_code).toBe('INSTRUCTOR_REQUIRED');
  });
});
