import { describe, expect, it } from 'vitest';
import { ERROR_STATUS, isErrorCode } from '../src/error-codes.js';
import { CATALOGUES, SUPPORTED_LOCALES } from '../src/i18n/catalogues.js';

const CODES = Object.keys(ERROR_STATUS);

// The views show `errors:<code>` for a refusal, so a code added to the catalogue without its message would show the key.
describe.each([...SUPPORTED_LOCALES])('errors messages in %s', (locale) => {
  const messages = CATALOGUES[locale].errors as Readonly<Record<string, unknown>>;

  it('has a message for every error code', () => {
    const missing = CODES.filter((code) => typeof messages[code] !== 'string' || (messages[code] as string).trim() === '');
    expect(missing).toEqual([]);
  });

  it('has no message for a code the service does not answer with', () => {
    expect(Object.keys(messages).filter((key) => !isErrorCode(key))).toEqual([]);
  });

  it('words each message on its own, without values to fill in', () => {
    const withValues = Object.entries(messages).filter(([, text]) => typeof text === 'string' && text.includes('{{'));
    expect(withValues.map(([code]) => code)).toEqual([]);
  });
});
