import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useTRPC } from '../../lib/trpc';

/** While the legacy backfill runs, the dashboard asks again this often, at most this many times per opening. */
const RETRY_MS = 3_000;
const MAX_ATTEMPTS = 40;

/**
 * Sends the account's catch-up (`admin.catchUp`: the one-time legacy backfill and a reconciliation batch) once when the
 * dashboard opens, and again while the backfill is still running, reloading the lists after each answer so the courses
 * it connected appear. The summary itself is a read that changes nothing; these writes are the dashboard's to ask for.
 */
export function useCatchUp(): void {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { mutateAsync } = useMutation(trpc.admin.catchUp.mutationOptions());
  const latest = useRef({ mutateAsync, queryClient, pathKey: trpc.admin.pathKey() });
  latest.current = { mutateAsync, queryClient, pathKey: trpc.admin.pathKey() };

  useEffect(() => {
    let stopped = false;
    let timer: number | undefined;
    const attempt = async (count: number) => {
      try {
        const answer = await latest.current.mutateAsync();
        if (stopped) return;
        void latest.current.queryClient.invalidateQueries({ queryKey: latest.current.pathKey });
        if (!answer.backfilled && count + 1 < MAX_ATTEMPTS) timer = window.setTimeout(() => void attempt(count + 1), RETRY_MS);
      } catch {
        // Nothing the dashboard shows depends on it; the next opening asks again.
      }
    };
    void attempt(0);
    return () => {
      stopped = true;
      window.clearTimeout(timer);
    };
  }, []);
}
