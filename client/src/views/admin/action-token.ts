import { retryLink, TRPCClientError, type HTTPHeaders, type Operation, type TRPCLink } from '@trpc/client';
import { ErrorCodes } from '@exb/shared/error-codes.js';
import { TRPC_PATH, type AppRouter } from '../../lib/trpc';
import { sessionFetch } from '../../lib/session-token';

/** The header administrator mutations carry their action token in (Document 2; `server/src/security/action-token.ts`). */
export const ACTION_TOKEN_HEADER = 'x-exb-action-token';
const RENEW_PATH = `${TRPC_PATH}/admin.actionToken.renew`;

interface Renewed {
  actionToken: string;
  expiresInSeconds: number;
}

function readRenewed(body: unknown): Renewed | null {
  const data = (body as { result?: { data?: Partial<Renewed> } } | null)?.result?.data;
  return typeof data?.actionToken === 'string' && typeof data.expiresInSeconds === 'number'
    ? { actionToken: data.actionToken, expiresInSeconds: data.expiresInSeconds }
    : null;
}

/**
 * The administrator page's action token. It starts as the one the page was rendered with and is renewed through a
 * same-origin query at half its lifetime while the page is open, and at once when a mutation was refused for an
 * expired token (a computer that slept); so an administrator who works for hours never meets an expired one.
 */
export function createActionTokenStore(initial: string | undefined, lifetimeSeconds = 600) {
  let token = initial ?? '';
  let renewing: Promise<void> | null = null;
  let timer: number | undefined;

  const schedule = (seconds: number) => {
    window.clearTimeout(timer);
    timer = window.setTimeout(() => void renew(), Math.max(30, seconds / 2) * 1000);
  };

  const renew = (): Promise<void> => {
    renewing ??= (async () => {
      try {
        const response = await sessionFetch(RENEW_PATH, { headers: { accept: 'application/json' } });
        const renewed = response.ok ? readRenewed(await response.json()) : null;
        if (renewed !== null) {
          token = renewed.actionToken;
          schedule(renewed.expiresInSeconds);
        } else {
          schedule(60);
        }
      } catch {
        // Offline for a moment: the next attempt, or the refused mutation, renews again.
        schedule(60);
      } finally {
        renewing = null;
      }
    })();
    return renewing;
  };

  return {
    /** Starts renewing at half the lifetime of the token the page came with. */
    start() {
      schedule(lifetimeSeconds);
    },
    /** Headers of a request batch: the token, once any renewal under way finished, on batches with a mutation. */
    async headers({ opList }: { opList: readonly Operation[] }): Promise<HTTPHeaders> {
      if (!opList.some((op) => op.type === 'mutation')) return {};
      if (renewing !== null) await renewing;
      return token === '' ? {} : { [ACTION_TOKEN_HEADER]: token };
    },
    /** Retries a mutation once that was refused for its token, after a renewal. */
    retryLink(): TRPCLink<AppRouter> {
      return retryLink<AppRouter>({
        retry: ({ op, error, attempts }) => {
          const code = error instanceof TRPCClientError ? (error.data as { errorCode?: unknown } | undefined)?.errorCode : undefined;
          if (op.type !== 'mutation' || attempts > 1 || code !== ErrorCodes.INVALID_ACTION_TOKEN) return false;
          void renew();
          return true;
        },
      });
    },
    stop() {
      window.clearTimeout(timer);
    },
  };
}

export type ActionTokenStore = ReturnType<typeof createActionTokenStore>;
