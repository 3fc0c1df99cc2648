/** Character checks shared by the host name, URL and label rules. */
import { refuse, type ValueCheck } from './errors.js';

// Whitespace, controls, and the bidirectional and zero-width formatting characters that make text read differently.
export const INVISIBLE_OR_CONTROL = /[\s\u0000-\u001f\u007f-\u009f\u00ad\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/u;

/** `new URL` without the exception, for checks that only need to know whether a value parses. */
export function parseUrl(value: string): URL | null {
  try {
    return new URL(value);
  } catch {
    return null;
  }
}

/**
 * A display label in canonical form (NFC, trimmed), refused when too long or when it carries characters that change
 * how it reads.
 */
export function normalizeLabel(value: string, maxLength: number): ValueCheck<string> {
  const label = value.normalize('NFC').trim();
  if (label.length > maxLength) return refuse('label.tooLong', { max: maxLength });
  if (/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u.test(label)) {
    return refuse('label.controlCharacters');
  }
  return { ok: true, value: label };
}
