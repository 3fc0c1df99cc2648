import { z } from 'zod';

/**
 * The change signals of open exam-day boards in this instance. The database notifies every instance once per
 * statement and assessment (the trigger of `exb_exam_day_student`); this coalesces those per assessment, so that a
 * synchronized start of thousands of students gives each open board at most one signal per {@link windowMs}: the
 * first change is passed on at once, later ones within the window are folded into one signal at its end. A signal
 * carries no data: the live boards (`live-boards.ts`) read what changed on it.
 */

export const EXAM_DAY_CHANNEL = 'exb_exam_day';

/**
 * At most one signal per assessment in this long. Each signal sends every open board of the assessment what changed,
 * so while a class starts this sets what the boards cost the start: at 300 ms twenty boards added a sixth to the
 * start's CPU, at a second they add what the measurement's noise hides (`docs/performance.md`), and a change still
 * shows within the two seconds the boards promise. A change after a quiet second goes out at once.
 */
export const EXAM_DAY_COALESCE_MS = 1000;

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

  /** How many listeners this instance has (one per watched assessment: its live boards' topic); for tests. */
  get subscriberCount(): number {
    let count = 0;
    for (const topic of this.topics.values()) count += topic.subscribers.size;
    return count;
  }

  /**
   * Calls `onSignal` with each coalesced signal of one assessment until the returned function is called. Registered
   * at once: a change the database notifies after this returns reaches `onSignal`.
   */
  listen(courseId: string, assessmentId: string, onSignal: Subscriber): () => void {
    const key = keyOf(courseId, assessmentId);
    let topic = this.topics.get(key);
    if (topic === undefined) {
      topic = { subscribers: new Set(), lastSentAt: Number.NEGATIVE_INFINITY, timer: null };
      this.topics.set(key, topic);
    }
    const subscriber: Subscriber = (change) => onSignal(change);
    topic.subscribers.add(subscriber);
    const listening = topic;
    return () => {
      listening.subscribers.delete(subscriber);
      if (listening.subscribers.size === 0 && this.topics.get(key) === listening) {
        if (listening.timer !== null) clearTimeout(listening.timer);
        this.topics.delete(key);
      }
    };
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
