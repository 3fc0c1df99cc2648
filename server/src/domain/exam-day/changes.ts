import { z } from 'zod';

/**
 * The change signals of open exam-day boards in this instance. The database notifies every instance once per
 * statement and assessment (the trigger of `exb_exam_day_student`); this coalesces those per assessment, so that a
 * synchronized start of thousands of students gives each open board at most one signal per {@link windowMs}: the
 * first change is passed on at once, later ones within the window are folded into one signal at its end. A signal
 * carries no data: the board refetches, through its own authorized query.
 */

export const EXAM_DAY_CHANNEL = 'exb_exam_day';

/** At most one signal per assessment in this long. */
export const EXAM_DAY_COALESCE_MS = 300;

/** The trigger's payload: `[course_id, content_id]`. */
const payloadSchema = z.tuple([z.string(), z.string()]);

export interface ExamDayChange {
  courseId: string;
  assessmentId: string;
  /** When this instance passed the signal on (epoch ms). */
  at: number;
}

type Subscriber = (change: ExamDayChange) => void;

interface Topic {
  subscribers: Set<Subscriber>;
  lastSentAt: number;
  timer: NodeJS.Timeout | null;
}

const keyOf = (courseId: string, assessmentId: string) => JSON.stringify([courseId, assessmentId]);

/**
 * Who hears of changes (the board's shared reads): of a watched assessment's when its coalesced signal is passed on,
 * of any other's at once.
 */
export interface ChangeObserver {
  changed(courseId: string, assessmentId: string): void;
  everythingChanged(): void;
}

export class ExamDayChanges {
  private readonly topics = new Map<string, Topic>();
  private readonly endings = new Set<() => void>();

  constructor(
    private readonly windowMs: number = EXAM_DAY_COALESCE_MS,
    private readonly now: () => number = Date.now,
    private readonly observer?: ChangeObserver,
  ) {}

  /** A notification's payload as the database sent it; anything else is ignored. */
  notified(payload: string): void {
    let parsed;
    try {
      parsed = payloadSchema.safeParse(JSON.parse(payload));
    } catch {
      return;
    }
    if (parsed.success) this.changed(parsed.data[0], parsed.data[1]);
  }

  /** Every open board may have missed changes (the listener was away): each gets a signal. */
  everythingChanged(): void {
    this.observer?.everythingChanged();
    for (const key of this.topics.keys()) {
      const [courseId, assessmentId] = JSON.parse(key) as [string, string];
      this.changed(courseId, assessmentId);
    }
  }

  changed(courseId: string, assessmentId: string): void {
    const key = keyOf(courseId, assessmentId);
    const topic = this.topics.get(key);
    // Nobody watches this assessment here: nothing to hold, and a shared read of it is stale at once.
    if (topic === undefined) {
      this.observer?.changed(courseId, assessmentId);
      return;
    }
    if (topic.timer !== null) return;
    const wait = topic.lastSentAt + this.windowMs - this.now();
    if (wait <= 0) {
      this.send(topic, courseId, assessmentId);
      return;
    }
    topic.timer = setTimeout(() => {
      topic.timer = null;
      this.send(topic, courseId, assessmentId);
    }, wait);
    topic.timer.unref();
  }

  /** How many boards are open on this instance (bench and tests). */
  get subscriberCount(): number {
    let count = 0;
    for (const topic of this.topics.values()) count += topic.subscribers.size;
    return count;
  }

  /**
   * The signals of one assessment until `signal` aborts or {@link close} is called. Signals that arrive faster than
   * the reader takes them collapse into one (a board only needs to know that it is stale).
   */
  async *watch(courseId: string, assessmentId: string, signal?: AbortSignal): AsyncGenerator<ExamDayChange, void, void> {
    const key = keyOf(courseId, assessmentId);
    let topic = this.topics.get(key);
    if (topic === undefined) {
      topic = { subscribers: new Set(), lastSentAt: Number.NEGATIVE_INFINITY, timer: null };
      this.topics.set(key, topic);
    }
    let pending: ExamDayChange | null = null;
    let wake: (() => void) | null = null;
    let ended = false;
    const end = () => {
      ended = true;
      wake?.();
    };
    const subscriber: Subscriber = (change) => {
      pending = change;
      wake?.();
    };
    topic.subscribers.add(subscriber);
    this.endings.add(end);
    signal?.addEventListener('abort', end, { once: true });
    try {
      while (!ended && !signal?.aborted) {
        if (pending === null) {
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
          wake = null;
          continue;
        }
        const change: ExamDayChange = pending;
        pending = null;
        yield change;
      }
    } finally {
      signal?.removeEventListener('abort', end);
      this.endings.delete(end);
      topic.subscribers.delete(subscriber);
      if (topic.subscribers.size === 0 && this.topics.get(key) === topic) {
        if (topic.timer !== null) clearTimeout(topic.timer);
        this.topics.delete(key);
      }
    }
  }

  /** Ends every open watch (the service is closing: open streams must not hold it up). */
  close(): void {
    for (const end of [...this.endings]) end();
  }

  private send(topic: Topic, courseId: string, assessmentId: string): void {
    topic.lastSentAt = this.now();
    // Boards read on the signal, not on each change: a read shared among them only has to start after the signal,
    // since a change after it brings the next signal. Dropped on every change, a read was rarely shared while a
    // class started (changes come every few milliseconds then), and each board read the whole board alone.
    this.observer?.changed(courseId, assessmentId);
    const change = { courseId, assessmentId, at: topic.lastSentAt };
    for (const subscriber of topic.subscribers) subscriber(change);
  }
}
