import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useTRPC } from '../../lib/trpc';

/** While the legacy backfill runs, the dashboard asks again this often, at most this many times per opening. */
const RETRY_MS = 3_000;
const MAX_ATTEMPTS = 40;

/**
 * Sends the account's catch-up (`admin.catchUp`: the one-time legacy backfill and a reconciliation batch) once when the
 * dashboard opens, and again while the backfill is still running, then reloads the summary and the course lists so the
 * courses it connected appear. The summary itself is a read that changes nothing; these writes are the dashboard's to ask for.
 */
export function useCatchUp(): void {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { mutateAsync } = useMutation(trpc.admin.catchUp.mutationOptions());
  // Only what the backfill changes: the summary's counts and the course lists. Other views keep their state (a preset
  // rollout in progress would start over if its queries were reloaded under it).
  const changed = [trpc.admin.summary.queryKey(), trpc.admin.courses.pathKey()];
  const latest = useRef({ mutateAsync, queryClient, changed });
  latest.current = { mutateAsync, queryClient, changed };

  useEffect(() => {
    let stopped = false;
    let timer: number | undefined;
    const attempt = async (count: number) => {
      try {
        const answer = await latest.current.mutateAsync();
        if (stopped) return;
        if (answer.backfilled) {
          for (const queryKey of latest.current.changed) void latest.current.queryClient.invalidateQueries({ queryKey });
        } else if (count + 1 < MAX_ATTEMPTS) timer = window.setTimeout(() => void attempt(count + 1), RETRY_MS);
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
