import type { Logger } from 'pino';
import { mergeStudentChanges, type BoardEvent, type LmsRead } from '@exb/shared/exam-day.js';
import type { LmsApi } from '../../lms/index.js';
import type { ExamDayBoard } from './board.js';
import type { ExamDayChanges } from './changes.js';
import { EXAM_DAY_LMS_READ_INTERVAL_MS } from './lms-reader.js';

/**
 * The open exam-day boards of this instance, kept current by what changed rather than by reading every board again.
 * The boards of one assessment share a topic: on each coalesced signal (`changes.ts`) the topic reads once the students
 * whose record changed since its last read (`ExamDayBoard.changesSince`, exact by snapshot) and hands that to every
 * board. A class of thousands starting at once thus costs each signal one small read however many boards are open,
 * and each board a few rows to send, where reading and sending the whole class to every board on every signal took
 * as much of the service as the start itself.
 *
 * A board gets the whole board first, read after its topic's changes begin (nothing falls between the two), then the
 * changes. The LMS behind the board (attempts, roster) is read at most once a minute per assessment
 * (`ExamDayLmsReader`), with the grant of a board's viewer; when that or another instance's read brought news, every
 * board gets the whole board again (the roster's students are not rows that change).
 */

interface Follower {
  lms: LmsApi;
  queue: EventQueue;
}

interface Topic {
  readonly courseId: string;
  readonly contentId: string;
  readonly followers: Set<Follower>;
  /** The snapshot the next read of changes starts from. */
  cursor: Promise<string>;
  /** The topic's reads, one after another, so a whole board sent is never older than the changes sent before it. */
  work: Promise<void>;
  changesPending: boolean;
  /** How the LMS reads stood at the last whole board sent (`ExamDayBoard.lmsReads`). */
  lmsReads: string | null;
  /**
   * The name sent last for each student, so a change repeats none: a board has each name from its whole board or from
   * a change since, all read after the change that first carried it.
   */
  readonly names: Map<string, string | null>;
  unlisten: () => void;
  lmsTimer: NodeJS.Timeout;
}

const keyOf = (courseId: string, contentId: string) => JSON.stringify([courseId, contentId]);

/** How the LMS reads (attempts, roster) stand, comparable whether read alone or with a board (which adds the source). */
const readsKey = (reads: readonly (LmsRead | undefined)[]) =>
  JSON.stringify(reads.map((read) => read && [read.readAt, read.missingScope, read.failure]));

export class LiveBoards {
  private readonly topics = new Map<string, Topic>();

  constructor(
    private readonly board: ExamDayBoard,
    private readonly changes: ExamDayChanges,
    private readonly clock: () => number = Date.now,
    private readonly logger?: Logger,
    private readonly lmsIntervalMs: number = EXAM_DAY_LMS_READ_INTERVAL_MS,
  ) {}

  /** How many boards are open on this instance (bench and tests). */
  get followerCount(): number {
    let count = 0;
    for (const topic of this.topics.values()) count += topic.followers.size;
    return count;
  }

  /**
   * One board's events until `signal` aborts, {@link close} is called or the topic's read fails (then this throws,
   * and the page falls back to polling and opens the stream again). `lms` is the viewer's grant.
   */
  async *follow(courseId: string, contentId: string, lms: LmsApi, signal?: AbortSignal): AsyncGenerator<BoardEvent, void, void> {
    const follower: Follower = { lms, queue: new EventQueue() };
    const topic = this.join(courseId, contentId, follower);
    const end = () => follower.queue.end();
    signal?.addEventListener('abort', end, { once: true });
    try {
      await topic.cursor;
      const board = await this.board.readFreshWithLms(courseId, contentId, lms);
      topic.lmsReads ??= readsKey([board.attempts, board.roster]);
      // A whole board sent by the topic meanwhile was read before this one.
      follower.queue.dropBoards();
      yield { kind: 'board', board };
      for (;;) {
        const event = await follower.queue.next();
        if (event === null) return;
        yield event;
      }
    } finally {
      signal?.removeEventListener('abort', end);
      this.leave(topic, follower);
    }
  }

  /** Ends every open board (the service is closing: open streams must not hold it up). */
  close(): void {
    for (const topic of this.topics.values()) for (const follower of topic.followers) follower.queue.end();
  }

  private join(courseId: string, contentId: string, follower: Follower): Topic {
    const key = keyOf(courseId, contentId);
    let topic = this.topics.get(key);
    if (topic === undefined) {
      const created: Topic = {
        courseId,
        contentId,
        followers: new Set(),
        cursor: this.board.snapshot(),
        work: Promise.resolve(),
        changesPending: false,
        lmsReads: null,
        names: new Map(),
        unlisten: () => undefined,
        lmsTimer: setInterval(() => this.schedule(created, () => this.readLms(created)), this.lmsIntervalMs),
      };
      created.lmsTimer.unref();
      // Registered with the snapshot's statement under way: a change the snapshot misses brings a signal.
      created.unlisten = this.changes.listen(courseId, contentId, () => this.changed(created));
      created.cursor.catch((error: unknown) => this.fail(created, error));
      topic = created;
      this.topics.set(key, topic);
    }
    topic.followers.add(follower);
    return topic;
  }

  private leave(topic: Topic, follower: Follower): void {
    topic.followers.delete(follower);
    if (topic.followers.size === 0) this.drop(topic);
  }

  private drop(topic: Topic): void {
    const key = keyOf(topic.courseId, topic.contentId);
    if (this.topics.get(key) !== topic) return;
    this.topics.delete(key);
    topic.unlisten();
    clearInterval(topic.lmsTimer);
  }

  /** A read failed: the topic's boards end with the error, and the next board starts a new topic. */
  private fail(topic: Topic, error: unknown): void {
    this.logger?.warn({ err: error, courseId: topic.courseId, contentId: topic.contentId }, 'live exam-day board read failed');
    this.drop(topic);
    const failure = error instanceof Error ? error : new Error(String(error));
    for (const follower of topic.followers) follower.queue.fail(failure);
  }

  /** Signals that come while a read of changes waits or runs fold into it, or into the one after it. */
  private changed(topic: Topic): void {
    if (topic.changesPending) return;
    topic.changesPending = true;
    this.schedule(topic, () => this.readChanges(topic));
  }

  private schedule(topic: Topic, task: () => Promise<void>): void {
    topic.work = topic.work.then(async () => {
      if (this.topics.get(keyOf(topic.courseId, topic.contentId)) !== topic) return;
      try {
        await task();
      } catch (error) {
        this.fail(topic, error);
      }
    });
  }

  private async readChanges(topic: Topic): Promise<void> {
    topic.changesPending = false;
    const { snapshot, students } = await this.board.changesSince(topic.courseId, topic.contentId, await topic.cursor);
    topic.cursor = Promise.resolve(snapshot);
    if (students.length === 0) return;
    for (const student of students) {
      const [lmsUserId, name] = student;
      if (topic.names.has(lmsUserId) && topic.names.get(lmsUserId) === name) student[1] = null;
      else topic.names.set(lmsUserId, name);
    }
    const event: BoardEvent = { kind: 'changes', generatedAt: new Date(this.clock()).toISOString(), students };
    for (const follower of topic.followers) follower.queue.push(event);
  }

  /** The LMS's minute for this assessment: read it with the newest viewer's grant, and send news as a whole board. */
  private async readLms(topic: Topic): Promise<void> {
    const newest = [...topic.followers].at(-1);
    if (newest === undefined) return;
    const asked = await this.board.refreshLms(topic.courseId, topic.contentId, newest.lms);
    const reads = readsKey(await this.board.lmsReads(topic.courseId, topic.contentId));
    if (!asked && reads === topic.lmsReads) return;
    // Whatever changed before this snapshot is in the whole board; the next read of changes repeats some of it.
    const board = await this.board.readNow(topic.courseId, topic.contentId);
    topic.lmsReads = readsKey([board.attempts, board.roster]);
    for (const follower of topic.followers) follower.queue.pushBoard({ kind: 'board', board });
  }
}

/**
 * The events one board has yet to send. A board that sends slower than changes come gets them merged: the changes
 * waiting are one event with each student's newest version, so what waits never grows beyond the class.
 */
class EventQueue {
  private readonly pending: BoardEvent[] = [];
  private wake: (() => void) | null = null;
  private ended = false;
  private failure: Error | null = null;

  push(event: Extract<BoardEvent, { kind: 'changes' }>): void {
    const last = this.pending.at(-1);
    if (last?.kind === 'changes') {
      this.pending[this.pending.length - 1] = { ...event, students: mergeStudentChanges(last.students, event.students) };
    } else this.pending.push(event);
    this.wake?.();
  }

  /** A whole board supersedes everything that waits. */
  pushBoard(event: Extract<BoardEvent, { kind: 'board' }>): void {
    this.pending.length = 0;
    this.pending.push(event);
    this.wake?.();
  }

  dropBoards(): void {
    const changes = this.pending.filter((event) => event.kind === 'changes');
    this.pending.length = 0;
    this.pending.push(...changes);
  }

  end(): void {
    this.ended = true;
    this.wake?.();
  }

  fail(error: Error): void {
    this.failure = error;
    this.end();
  }

  /** The next event, or `null` once the board ended; throws the topic's failure. */
  async next(): Promise<BoardEvent | null> {
    for (;;) {
      if (this.failure !== null) throw this.failure;
      if (this.ended) return null;
      const event = this.pending.shift();
      if (event !== undefined) return event;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
      this.wake = null;
    }
  }
}
