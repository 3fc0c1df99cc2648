/**
 * Config grants, proof tokens and exit grants are 32 random bytes written as unpadded base64url: 43 characters. The last
 * character carries 4 data bits and 2 zero bits, so only 16 characters may end a canonical token; accepting just those
 * gives every token one spelling, so no second string decodes to the same bytes.
 *
 * No dependencies, so browser bundles can import it; the zod schema is in `base64url-token-schema.ts`.
 */
export const BASE64URL_TOKEN_LENGTH = 43;

export const BASE64URL_TOKEN_PATTERN = /^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/;

/** Syntax check only; says nothing about whether the token was issued, is unexpired or unconsumed. */
export function isBase64UrlToken(value: unknown): value is string {
  return typeof value === 'string' && value.length === BASE64URL_TOKEN_LENGTH && BASE64URL_TOKEN_PATTERN.test(value);
}
