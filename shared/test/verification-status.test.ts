import { describe, expect, it } from 'vitest';
import { VERIFICATION_STATUSES, verificationStatusSchema } from '../src/verification-status.js';

describe('verification status', () => {
  it('accepts each listed status', () => {
    for (const status of VERIFICATION_STATUSES) expect(verificationStatusSchema.parse(status)).toBe(status);
  });

  it('refuses anything else, case and padding included', () => {
    for (const value of ['VERIFIED', ' verified', 'verified ', '', 'unknown', null, undefined, 1, ['verified']]) {
      expect(verificationStatusSchema.safeParse(value).success, String(value)).toBe(false);
    }
  });
});
