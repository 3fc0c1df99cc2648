import type english from './i18n/locales/en/detector.json';
import { SUPPORTED_LOCALES, type Locale } from './i18n/locale.js';

/**
 * The prompts the detector shows inside the LMS page. The `detector` catalogue is flat (one level of keys), so the
 * browser bundle looks a prompt up without i18next; the server injects every language's prompts into the detector's
 * configuration once, and the detector picks the LMS page's language. No dependencies, like the configuration rules.
 */
export type DetectorMessageKey = keyof typeof english;

export type DetectorCatalogue = Readonly<Record<DetectorMessageKey, string>>;

export type DetectorMessages = { readonly [L in Locale]: DetectorCatalogue };

export const DETECTOR_MESSAGE_LIMITS = { keys: 64, length: 1000 } as const;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** One language's prompts: a bounded, non-empty set of non-empty strings. */
function parseCatalogue(value: unknown): DetectorCatalogue | null {
  if (!isRecord(value)) return null;
  const texts = Object.keys(value).map((key) => value[key]);
  if (texts.length === 0 || texts.length > DETECTOR_MESSAGE_LIMITS.keys) return null;
  const valid = texts.every((text) => typeof text === 'string' && text.length > 0 && text.length <= DETECTOR_MESSAGE_LIMITS.length);
  return valid ? ({ ...value } as DetectorCatalogue) : null;
}

/** Validates injected prompts: exactly the supported languages, each a catalogue of strings. */
export function parseDetectorMessages(value: unknown): DetectorMessages | null {
  if (!isRecord(value)) return null;
  const locales = Object.keys(value);
  if (locales.length !== SUPPORTED_LOCALES.length || !SUPPORTED_LOCALES.every((locale) => locales.includes(locale))) return null;
  const messages: Partial<Record<Locale, DetectorCatalogue>> = {};
  for (const locale of SUPPORTED_LOCALES) {
    const catalogue = parseCatalogue(value[locale]);
    if (catalogue === null) return null;
    messages[locale] = catalogue;
  }
  return messages as DetectorMessages;
}
