/**
 * The detector's words. The server injects the prompts of every supported language (the `detector` catalogue); the
 * detector speaks the LMS page's language, as the page declares it, and English for any other.
 */
import type { DetectorMessageKey, DetectorMessages } from '@exb/shared/detector-messages.js';
import { DEFAULT_LOCALE, localeOfTag, type Locale } from '@exb/shared/i18n/locale.js';

/** A prompt in the page's language, its `{{name}}` placeholders filled in. */
export type Text = (key: DetectorMessageKey, values?: Readonly<Record<string, string>>) => string;

const PLACEHOLDER = /\{\{\s*(\w+)\s*\}\}/g;

/** Fills `{{name}}` with `values[name]`; a placeholder without a value stays as written. */
export function interpolate(template: string, values: Readonly<Record<string, string>> = {}): string {
  // A replacer function, so `$&` and similar in a value are inserted literally.
  return template.replace(PLACEHOLDER, (placeholder: string, name: string) =>
    Object.prototype.hasOwnProperty.call(values, name) ? String(values[name]) : placeholder,
  );
}

/** The prompts in `locale`, falling back to English for a prompt the language lacks. */
export function createText(messages: DetectorMessages | undefined, locale: Locale): Text {
  return (key, values) => interpolate(messages?.[locale]?.[key] ?? messages?.[DEFAULT_LOCALE]?.[key] ?? key, values);
}

function declaredLanguage(win: Window): unknown {
  return win.document?.documentElement?.getAttribute('lang');
}

/** The LMS's own record of the user's language (`ENV.LOCALE`), read defensively: the page owns `ENV`. */
function lmsLocale(win: Window): unknown {
  try {
    const env = (win as unknown as { ENV?: unknown }).ENV;
    return typeof env === 'object' && env !== null ? (env as { LOCALE?: unknown }).LOCALE : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The language of the LMS page: its `<html lang>`, else the LMS's `ENV.LOCALE`. The first one the page declares decides,
 * so a page in a language the service does not speak gets English rather than another language it happens to name.
 */
export function pageLocale(win: Window): Locale {
  for (const tag of [declaredLanguage(win), lmsLocale(win)]) {
    if (typeof tag === 'string' && tag.trim() !== '') return localeOfTag(tag) ?? DEFAULT_LOCALE;
  }
  return DEFAULT_LOCALE;
}
