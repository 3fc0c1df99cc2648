import { TRPCClientError } from '@trpc/client';
import type { AppRouter } from '../../src/lib/trpc';

/** A refusal as the tRPC client hands it to a view: the server's message and its error data. */
export function refusal(message: string, data: Record<string, unknown>): TRPCClientError<AppRouter> {
  return TRPCClientError.from({ error: { message, code: -32600, data } });
}
