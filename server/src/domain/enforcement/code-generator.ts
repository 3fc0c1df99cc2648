import { randomBytes } from 'node:crypto';

/**
 * Access codes the service sets on LMS assessments. Nobody types them: the service hands the code to a proven exam
 * browser only, so they are optimized for strength and for surviving every LMS field and form unchanged:
 * - 24 characters from a 32-symbol alphabet of lower-case letters and digits, 120 bits of entropy;
 * - no `i`, `l`, `o`, `u` (easily misread if one is ever read out), no punctuation, no upper case, so neither URL or
 *   form encoding nor a case-folding LMS field changes the value;
 * - each character takes 5 bits of one random byte; 256 is a multiple of 32, so every symbol is equally likely.
 */
export const ACCESS_CODE_ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
export const ACCESS_CODE_LENGTH = 24;

export function generateAccessCode(): string {
  const bytes = randomBytes(ACCESS_CODE_LENGTH);
  let code = '';
  for (const byte of bytes) code += ACCESS_CODE_ALPHABET[byte & 31];
  return code;
}

export function isGeneratedAccessCode(value: unknown): value is string {
  return typeof value === 'string' && value.length === ACCESS_CODE_LENGTH && /^[0-9abcdefghjkmnpqrstvwxyz]+$/.test(value);
}
