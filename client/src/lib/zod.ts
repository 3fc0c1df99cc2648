import { z } from 'zod';

// The pages are served with a CSP that forbids eval. Zod's object fast path probes `new Function`,
// which such a CSP reports as a violation even though zod catches the error; jitless skips the probe.
z.config({ jitless: true });

export { z };

/** An absolute http(s) URL: anything else (javascript:, data:) must never reach an href. */
export const httpUrl = z.url({ protocol: z.regexes.httpProtocol });

/**
 * An optional field that also accepts `null`, normalised to `undefined`: server code may
 * serialise absent values either way, and views should only have to handle one.
 */
export function optional<T extends z.ZodType>(schema: T) {
  return schema.nullish().transform((value) => value ?? undefined);
}
