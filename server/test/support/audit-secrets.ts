import { expect } from 'vitest';

/**
 * Checks that no audit entry holds a secret: none of the given values (passwords, access codes, tokens that were in
 * play), nothing shaped like one of the service's 43-character tokens, and no LMS session URL or token parameter.
 */
export function expectNoSecretsInTrail(rows: readonly unknown[], secrets: readonly (string | null | undefined)[]): void {
  const trail = JSON.stringify(rows);
  for (const secret of secrets) {
    if (typeof secret === 'string' && secret.length > 0) expect(trail, 'an audit entry holds a secret value').not.toContain(secret);
  }
  expect(trail).not.toMatch(/(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/);
  expect(trail).not.toMatch(/session_token|access_token|refresh_token/i);
}
