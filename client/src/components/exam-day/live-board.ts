import { useEffect, useRef, useState } from 'react';

/**
 * Keeps an exam-day board current: a live signal over server-sent events makes it read the board again, and while the
 * stream is down (a proxy that drops it, a service restart, a refusal) the board is read every {@link POLL_MS}
 * instead, and the stream is opened again after a growing pause.
 */
export const POLL_MS = 10_000;
const RETRY_MS = [1_000, 2_000, 5_000, 10_000, 30_000] as const;

/** What `subscribe` gets: the tRPC client's subscription callbacks this hook uses. */
export interface LiveHandlers {
  onStarted: () => void;
  onData: () => void;
  onError: () => void;
  onComplete: () => void;
  onConnectionStateChange: (state: { state: 'idle' | 'connecting' | 'pending' }) => void;
}

export type Subscribe = (handlers: LiveHandlers) => { unsubscribe: () => void };

export interface LiveBoard {
  /** The stream is open: changes arrive within a second or two. */
  live: boolean;
  /** How often to read the board without the stream (`false` while live). */
  refetchInterval: number | false;
}

export function useLiveBoard(subscribe: Subscribe, refetch: () => void, key: string): LiveBoard {
  const [live, setLive] = useState(false);
  // The latest callbacks, without opening a new stream each render.
  const latest = useRef({ subscribe, refetch });
  latest.current = { subscribe, refetch };

  useEffect(() => {
    let stopped = false;
    let failures = 0;
    let current: { unsubscribe: () => void } | null = null;
    let retry: ReturnType<typeof setTimeout> | null = null;
    let reconnecting = false;
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
      current = latest.current.subscribe({
        onStarted: () => {
          failures = 0;
          setLive(true);
          // What changed while the stream was down.
          latest.current.refetch();
        },
        onData: () => latest.current.refetch(),
        onError: down,
        onComplete: down,
        // The link reconnects a dropped stream by itself: polling meanwhile, and a read for what the gap missed.
        onConnectionStateChange: ({ state }) => {
          if (state === 'connecting') {
            reconnecting = true;
            setLive(false);
          }
          if (state === 'pending' && reconnecting) {
            reconnecting = false;
            setLive(true);
            latest.current.refetch();
          }
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

  return { live, refetchInterval: live ? false : POLL_MS };
}
