/**
 * The service clock: milliseconds since the epoch. Every lifetime the service stores (one-time tokens, grants, proofs,
 * handoffs, exit grants, the Config Keys kept for proofs, action tokens) is measured with it, and the database only
 * compares the instants it is given, so tests move time by swapping the clock instead of waiting or rewriting rows.
 */
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();
