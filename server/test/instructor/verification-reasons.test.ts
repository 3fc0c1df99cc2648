import { describe, expect, it } from 'vitest';
import { CATALOGUES } from '@exb/shared/i18n/catalogues.js';
import { VERIFICATION_REASONS } from '../../src/domain/enforcement/access-code-verification.js';

// The server stores why an access code is unconfirmed as an English sentence; the teacher view finds the catalogue key
// of that sentence (`teacher:verification.reason`) to say it in the page's language. Both must say the same.
describe('reasons of an unconfirmed access code', () => {
  it('are the English sentences of the teacher catalogue, key for key', () => {
    expect(CATALOGUES.en.teacher.verification.reason).toEqual(VERIFICATION_REASONS);
  });
});
