import { useEffect, useRef, useState } from 'react';
import { applyBoardChanges, decodeStudentChange, type Board, type BoardEvent } from '@exb/shared/exam-day.js';

/**
 * Keeps an exam-day board current: its stream over server-sent events sends the whole board, then what changed, and
 * while the stream is down (a proxy that drops it, a service restart, a refusal) the board is read every
 * {@link POLL_MS} instead, and the stream is opened again after a growing pause; the stream opened again starts with
 * the whole board, so nothing the gap missed is lost.
 */
export const POLL_MS = 10_000;
const RETRY_MS = [1_000, 2_000, 5_000, 10_000, 30_000] as const;

/** What `subscribe` gets: the tRPC client's subscription callbacks this hook uses. */
export interface LiveHandlers {
  onStarted: () => void;
  onData: (event: BoardEvent) => void;
  onError: () => void;
  onComplete: () => void;
  onConnectionStateChange: (state: { state: 'idle' | 'connecting' | 'pending' }) => void;
}

export type Subscribe = (handlers: LiveHandlers) => { unsubscribe: () => void };

export interface LiveBoard {
  /** The stream is open: changes arrive within a second or two. */
  live: boolean;
  /** The board as the stream had it last (kept while the stream is down), `null` before its first event. */
  board: Board | null;
  /** How often to read the board without the stream (`false` while live). */
  refetchInterval: number | false;
}

export function useLiveBoard(subscribe: Subscribe, key: string): LiveBoard {
  const [live, setLive] = useState(false);
  const [board, setBoard] = useState<Board | null>(null);
  // The latest callback, without opening a new stream each render.
  const latest = useRef(subscribe);
  latest.current = subscribe;

  useEffect(() => {
    let stopped = false;
    let failures = 0;
    let current: { unsubscribe: () => void } | null = null;
    let retry: ReturnType<typeof setTimeout> | null = null;
    setBoard(null);
    const down = () => {
      setLive(false);
      current?.unsubscribe();
      current = null;
      if (stopped || retry !== null) return;
      const pause = RETRY_MS[Math.min(failures, RETRY_MS.length - 1)]!;
      failures += 1;
      retry = setTimeout(() => {
        retry = null;
        open();
      }, pause);
    };
    const open = () => {
      if (stopped) return;
      current = latest.current({
        onStarted: () => {
          failures = 0;
        },
        // The stream is live from its whole board on.
        onData: (event) => {
          if (event.kind === 'board') {
            setBoard(event.board);
            setLive(true);
          } else {
            const changes = { generatedAt: event.generatedAt, students: event.students.map(decodeStudentChange) };
            setBoard((shown) => (shown === null ? null : applyBoardChanges(shown, changes)));
          }
        },
        onError: down,
        onComplete: down,
        // The link reconnects a dropped stream by itself: polling meanwhile, until the stream's whole board is back.
        onConnectionStateChange: ({ state }) => {
          if (state === 'connecting') setLive(false);
        },
      });
    };
    open();
    return () => {
      stopped = true;
      if (retry !== null) clearTimeout(retry);
      current?.unsubscribe();
    };
  }, [key]);

  return { live: live && board !== null, board, refetchInterval: live && board !== null ? false : POLL_MS };
}
