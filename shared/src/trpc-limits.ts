/**
 * The most procedure calls one tRPC request may carry. Each can reach the LMS or reveal a secret, so a request may not
 * multiply them; the client splits longer batches and sends every mutation on its own.
 */
export const TRPC_MAX_BATCH_SIZE = 10;
