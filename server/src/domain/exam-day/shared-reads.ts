import type { Board } from '@exb/shared/exam-day.js';

/**
 * One read of a board for all its viewers on this instance. Every open board reads the whole board on the same signal,
 * so twenty boards of one assessment would run the same query twenty times within milliseconds; here they share one
 * read that started after the last signal this instance passed on for it (`changes.ts` tells of a watched assessment's
 * changes with its coalesced signal). The signal drops the shared read at once (a read started before it may miss a
 * change it stands for), so a viewer never gets an answer older than the signal it reads for. Without
 * changes a read is shared for at most {@link SHARED_READ_MS}, which bounds how stale an answer can be while the
 * listener is away.
 */
export const SHARED_READ_MS = 250;

interface Entry {
  board: Promise<Board>;
  startedAt: number;
}

const keyOf = (courseId: string, contentId: string) => JSON.stringify([courseId, contentId]);

export class SharedBoardReads {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly read: (courseId: string, contentId: string) => Promise<Board>,
    private readonly now: () => number = Date.now,
  ) {}

  get(courseId: string, contentId: string): Promise<Board> {
    const key = keyOf(courseId, contentId);
    const now = this.now();
    const shared = this.entries.get(key);
    if (shared !== undefined && now - shared.startedAt < SHARED_READ_MS) return shared.board;
    const entry: Entry = { board: this.read(courseId, contentId), startedAt: now };
    this.entries.set(key, entry);
    // A failed read is not shared beyond those already waiting for it; an old one is dropped so the map stays small.
    entry.board.then(
      () => setTimeout(() => this.forget(key, entry), SHARED_READ_MS).unref(),
      () => this.forget(key, entry),
    );
    return entry.board;
  }

  /** The assessment changed: the next reader starts a new read. */
  changed(courseId: string, contentId: string): void {
    this.entries.delete(keyOf(courseId, contentId));
  }

  /** Anything may have changed (the listener was away). */
  clear(): void {
    this.entries.clear();
  }

  private forget(key: string, entry: Entry): void {
    if (this.entries.get(key) === entry) this.entries.delete(key);
  }
}
