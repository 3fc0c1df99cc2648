import pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { NotificationListener } from '../../src/db/notification-listener.js';
import { ExamDayChanges } from '../../src/domain/exam-day/changes.js';
import { createTestDatabase } from '../support/database.js';
import { startTcpRelay } from '../support/tcp-proxy.js';

describe('coalescing per assessment', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('passes the first change at once and folds the rest of a window into one signal at its end', async () => {
    vi.useFakeTimers();
    const changes = new ExamDayChanges(300, () => Date.now());
    const signals: unknown[] = [];
    const unlisten = changes.listen('101', 'quiz:1', (change) => signals.push(change));
    changes.notified(JSON.stringify(['101', 'quiz:1']));
    expect(signals).toEqual([expect.objectContaining({ courseId: '101', assessmentId: 'quiz:1' })]);

    // 3,000 notifications in one window: one signal, at the window's end.
    for (let index = 0; index < 3000; index += 1) changes.notified(JSON.stringify(['101', 'quiz:1']));
    await vi.advanceTimersByTimeAsync(299);
    expect(signals).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(signals).toHaveLength(2);
    // Another assessment's change and malformed payloads reach nobody here.
    changes.notified(JSON.stringify(['101', 'quiz:2']));
    for (const payload of ['', 'null', '[1,2]', '{"a":1}', '["101"]']) changes.notified(payload);
    await vi.advanceTimersByTimeAsync(1000);
    expect(signals).toHaveLength(2);
    unlisten();
    expect(changes.subscriberCount).toBe(0);
    // A signal pending when the last listener left goes nowhere.
    changes.notified(JSON.stringify(['101', 'quiz:1']));
    await vi.advanceTimersByTimeAsync(1000);
    expect(signals).toHaveLength(2);
  });

  it('tells the shared reads of a watched assessment with its signal, and of any other at once', async () => {
    vi.useFakeTimers();
    const told: string[] = [];
    const observer = {
      changed: (course: string, assessment: string) => void told.push(`${course}/${assessment}`),
      everythingChanged: () => undefined,
    };
    const changes = new ExamDayChanges(300, () => Date.now(), observer);
    const unlisten = changes.listen('101', 'quiz:1', () => undefined);
    changes.notified(JSON.stringify(['101', 'quiz:1']));
    expect(told).toEqual(['101/quiz:1']);
    // The window's changes drop the shared read once, when their signal goes out, not with each change.
    for (let index = 0; index < 50; index += 1) changes.notified(JSON.stringify(['101', 'quiz:1']));
    expect(told).toEqual(['101/quiz:1']);
    await vi.advanceTimersByTimeAsync(300);
    expect(told).toEqual(['101/quiz:1', '101/quiz:1']);
    // Nobody here watches quiz:2: its shared read is dropped at once.
    changes.notified(JSON.stringify(['101', 'quiz:2']));
    expect(told).toEqual(['101/quiz:1', '101/quiz:1', '101/quiz:2']);
    unlisten();
  });

  it('signals every watched assessment after a gap, each of its listeners', () => {
    const changes = new ExamDayChanges(50);
    const signals: string[] = [];
    const unlisten = [
      changes.listen('101', 'quiz:1', (change) => signals.push(`a ${change.assessmentId}`)),
      changes.listen('101', 'quiz:1', (change) => signals.push(`b ${change.assessmentId}`)),
      changes.listen('102', 'quiz:9', (change) => signals.push(`c ${change.assessmentId}`)),
    ];
    changes.everythingChanged();
    expect(signals.sort()).toEqual(['a quiz:1', 'b quiz:1', 'c quiz:9']);
    for (const stop of unlisten) stop();
    expect(changes.subscriberCount).toBe(0);
  });
});

describe('the notification listener', () => {
  it('keeps trying while the database is unreachable, without throwing, and reports the connection back', async () => {
    const database = await createTestDatabase();
    const target = new URL(database.url);
    const relay = await startTcpRelay({ host: target.hostname, port: Number(target.port || 5432) });
    const payloads: string[] = [];
    let reconnects = 0;
    const warnings: string[] = [];
    const listener = new NotificationListener({
      connectionString: relay.through(database.url),
      channel: 'exb_exam_day',
      logger: { info: () => undefined, warn: (_fields: unknown, message?: string) => void warnings.push(String(message)) } as never,
      onNotification: (payload) => payloads.push(payload),
      onReconnect: () => (reconnects += 1),
      backoff: { initialMs: 20, maxMs: 100 },
      connectTimeoutMs: 1_000,
    });
    const notify = async (payload: string) => {
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      await client.query(`select pg_notify('exb_exam_day', $1)`, [payload]);
      await client.end();
    };
    try {
      await listener.start();
      expect(listener.listening).toBe(true);
      await notify('one');
      await expect.poll(() => payloads).toEqual(['one']);

      // The database goes away: the connection is cut and new ones are refused for a while.
      await relay.stop();
      await expect.poll(() => listener.listening).toBe(false);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(warnings.length).toBeGreaterThan(1);
      await relay.start();
      await expect.poll(() => reconnects, { timeout: 5_000 }).toBe(1);
      await notify('two');
      await expect.poll(() => payloads).toEqual(['one', 'two']);
    } finally {
      await listener.close();
      await relay.stop();
      await database.drop();
    }
    expect(listener.listening).toBe(false);
  });

  it('refuses a channel name that is not a plain identifier', () => {
    expect(
      () => new NotificationListener({ connectionString: 'postgres://x', channel: 'a; drop table x', logger: console as never, onNotification: () => undefined }),
    ).toThrow(/channel/);
  });
});
