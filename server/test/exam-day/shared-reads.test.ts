import { describe, expect, it } from 'vitest';
import type { Board } from '@exb/shared/exam-day.js';
import { SHARED_READ_MS, SharedBoardReads } from '../../src/domain/exam-day/shared-reads.js';

function reads() {
  let now = 0;
  let count = 0;
  const started: ((board: Board) => void)[] = [];
  const shared = new SharedBoardReads(
    (courseId, contentId) => {
      count += 1;
      return new Promise<Board>((resolve) => started.push(resolve));
    },
    () => now,
  );
  const board = (n: number) => ({ courseId: '101', assessmentId: 'quiz:1', generatedAt: new Date(n).toISOString(), counts: {}, students: [] }) as unknown as Board;
  return { shared, count: () => count, finish: (index: number, n: number) => started[index]!(board(n)), at: (ms: number) => (now = ms) };
}

describe('shared board reads', () => {
  it('gives the viewers of one signal one read, and a change a new one', async () => {
    const r = reads();
    const first = [r.shared.get('101', 'quiz:1'), r.shared.get('101', 'quiz:1')];
    expect(r.count()).toBe(1);
    // Another assessment reads on its own.
    void r.shared.get('101', 'quiz:2');
    expect(r.count()).toBe(2);
    // A change while the read runs: the next viewer does not join it, it may have missed the change.
    r.shared.changed('101', 'quiz:1');
    const after = r.shared.get('101', 'quiz:1');
    expect(r.count()).toBe(3);
    r.finish(0, 1);
    r.finish(2, 2);
    expect((await Promise.all(first)).map((b) => b.generatedAt)).toEqual([new Date(1).toISOString(), new Date(1).toISOString()]);
    expect((await after).generatedAt).toBe(new Date(2).toISOString());
    // Without changes a read is shared for a short while only.
    r.at(SHARED_READ_MS - 1);
    void r.shared.get('101', 'quiz:1');
    expect(r.count()).toBe(3);
    r.at(SHARED_READ_MS + 1);
    void r.shared.get('101', 'quiz:1');
    expect(r.count()).toBe(4);
    r.shared.clear();
    void r.shared.get('101', 'quiz:1');
    expect(r.count()).toBe(5);
  });
});
