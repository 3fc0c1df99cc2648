import { afterEach, describe, expect, it, vi } from 'vitest';
import { countStates, type Board, type BoardEvent, type LmsRead, type StudentChange } from '@exb/shared/exam-day.js';
import type { ExamDayBoard } from '../../src/domain/exam-day/board.js';
import { ExamDayChanges } from '../../src/domain/exam-day/changes.js';
import { LiveBoards } from '../../src/domain/exam-day/live-boards.js';
import type { LmsApi } from '../../src/lms/index.js';

/**
 * The fan-out of live boards on one instance, with the board's reads counted in place of the database (the reads
 * themselves, their snapshots and the stream over HTTP are covered against PostgreSQL in `live.test.ts`).
 */

const COURSE = '101';
const QUIZ = 'classicquiz_1';
const NO_READ: LmsRead = { readAt: null, missingScope: null, failure: null };

const change = (lmsUserId: string, version: number, downloads = 1, name: string | null = null): StudentChange => [
  lmsUserId,
  name,
  version,
  downloads,
  [],
];

function emptyBoard(): Board {
  return { courseId: COURSE, assessmentId: QUIZ, generatedAt: new Date().toISOString(), counts: countStates([]), students: [] };
}

/** The reads a topic asks of the board, answered from `pending` (the changes the next read finds). */
class CountingBoard {
  snapshots = 0;
  changeReads = 0;
  wholeReads = 0;
  lmsAsked = false;
  lmsReadsNow: [LmsRead, LmsRead] = [NO_READ, NO_READ];
  pending: StudentChange[] = [];
  failNext: Error | null = null;

  async snapshot() {
    this.snapshots += 1;
    return `s${this.snapshots}`;
  }
  async changesSince(_course: string, _content: string, since: string) {
    this.changeReads += 1;
    if (this.failNext !== null) throw this.failNext;
    const students = this.pending;
    this.pending = [];
    return { snapshot: `${since}+`, students };
  }
  async readFreshWithLms() {
    this.wholeReads += 1;
    return { ...emptyBoard(), attempts: NO_READ, roster: { ...NO_READ, source: 'unavailable' as const } };
  }
  async readNow() {
    this.wholeReads += 1;
    return { ...emptyBoard(), attempts: this.lmsReadsNow[0], roster: { ...this.lmsReadsNow[1], source: 'enrollments' as const } };
  }
  async refreshLms() {
    return this.lmsAsked;
  }
  async lmsReads() {
    return this.lmsReadsNow;
  }
}

function setUp(lmsIntervalMs = 60_000) {
  const board = new CountingBoard();
  const changes = new ExamDayChanges(0);
  const live = new LiveBoards(board as unknown as ExamDayBoard, changes, Date.now, undefined, lmsIntervalMs);
  return { board, changes, live };
}

const lms = {} as LmsApi;
const signal = (changes: ExamDayChanges) => changes.notified(JSON.stringify([COURSE, QUIZ]));

afterEach(() => {
  vi.useRealTimers();
});

describe('live boards', () => {
  it('reads the changes once per signal for every board of the assessment', async () => {
    const { board, changes, live } = setUp();
    const boards = Array.from({ length: 5 }, () => live.follow(COURSE, QUIZ, lms));
    const firsts = await Promise.all(boards.map((follow) => follow.next()));
    expect(firsts.map((first) => (first.value as BoardEvent).kind)).toEqual(Array(5).fill('board'));
    expect(board.snapshots).toBe(1);

    board.pending = [change('7', 3)];
    const next = boards.map((follow) => follow.next());
    signal(changes);
    const events = (await Promise.all(next)).map((result) => result.value as BoardEvent);
    expect(events).toEqual(Array(5).fill({ kind: 'changes', generatedAt: expect.any(String), students: [change('7', 3)] }));
    expect(board.changeReads).toBe(1);
    expect(live.followerCount).toBe(5);
    await Promise.all(boards.map((follow) => follow.return(undefined)));
    expect(live.followerCount).toBe(0);
  });

  it('folds what waits for a slow board into one event with each student’s newest version', async () => {
    const { board, changes, live } = setUp();
    const follow = live.follow(COURSE, QUIZ, lms);
    await follow.next();
    for (const [id, version] of [['7', 3], ['8', 4], ['7', 9], ['7', 5]] as const) {
      board.pending = [change(id, version, version)];
      signal(changes);
      await vi.waitFor(() => expect(board.pending).toEqual([]));
    }
    const event = (await follow.next()).value as Extract<BoardEvent, { kind: 'changes' }>;
    expect(event.students.map((student) => [student[0], student[2]]).sort()).toEqual([
      ['7', 9],
      ['8', 4],
    ]);
    await follow.return(undefined);
  });

  it('sends each student’s name once, and a slow board keeps it through the merge', async () => {
    const { board, changes, live } = setUp();
    const fast = live.follow(COURSE, QUIZ, lms);
    const slow = live.follow(COURSE, QUIZ, lms);
    await Promise.all([fast.next(), slow.next()]);
    board.pending = [change('7', 1, 0, 'Ada')];
    signal(changes);
    expect(((await fast.next()).value as Extract<BoardEvent, { kind: 'changes' }>).students).toEqual([change('7', 1, 0, 'Ada')]);
    board.pending = [change('7', 2, 1, 'Ada')];
    signal(changes);
    expect(((await fast.next()).value as Extract<BoardEvent, { kind: 'changes' }>).students).toEqual([change('7', 2, 1, null)]);
    // The slow board's two waiting changes fold into the newest version, with the name the first one carried.
    expect(((await slow.next()).value as Extract<BoardEvent, { kind: 'changes' }>).students).toEqual([change('7', 2, 1, 'Ada')]);
    await Promise.all([fast.return(undefined), slow.return(undefined)]);
  });

  it('ends every board of a topic whose read failed, and the next board starts anew', async () => {
    const { board, changes, live } = setUp();
    const boards = [live.follow(COURSE, QUIZ, lms), live.follow(COURSE, QUIZ, lms)];
    await Promise.all(boards.map((follow) => follow.next()));
    board.failNext = new Error('connection terminated');
    const ends = boards.map((follow) => follow.next());
    signal(changes);
    for (const end of ends) await expect(end).rejects.toThrow('connection terminated');
    expect(live.followerCount).toBe(0);

    board.failNext = null;
    const again = live.follow(COURSE, QUIZ, lms);
    expect(((await again.next()).value as BoardEvent).kind).toBe('board');
    expect(board.snapshots).toBe(2);
    await again.return(undefined);
  });

  it('sends the whole board again once a minute when the LMS’s reads brought news, and only then', async () => {
    vi.useFakeTimers();
    const { board, live } = setUp(60_000);
    const follow = live.follow(COURSE, QUIZ, lms);
    await follow.next();
    let received: BoardEvent | null = null;
    void follow.next().then((result) => (received = result.value as BoardEvent));

    // Another instance read the roster since: the reads' outcome changed.
    board.lmsReadsNow = [NO_READ, { readAt: '2026-11-28T09:00:00.000Z', missingScope: null, failure: null }];
    await vi.advanceTimersByTimeAsync(60_000);
    expect(received).toMatchObject({ kind: 'board', board: { roster: { source: 'enrollments' } } });

    // A minute without news sends nothing.
    received = null;
    void follow.next().then((result) => (received = result.value as BoardEvent));
    const reads = board.wholeReads;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(received).toBeNull();
    expect(board.wholeReads).toBe(reads);
    live.close();
  });

  it('ends open boards when the service closes', async () => {
    const { live } = setUp();
    const follow = live.follow(COURSE, QUIZ, lms);
    await follow.next();
    const end = follow.next();
    live.close();
    expect((await end).done).toBe(true);
    expect(live.followerCount).toBe(0);
  });
});
