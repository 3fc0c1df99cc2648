/**
 * The languages the service speaks. A launch's `launch_presentation.locale` (or, before any launch, the browser's
 * Accept-Language) picks one; anything else falls back to English. The locale only chooses words: it never changes a
 * contract field or an error code.
 */
export const SUPPORTED_LOCALES = ['en', 'de'] as const;

export type Locale = (typeof SUPPORTED_LOCALES)[number];

export const DEFAULT_LOCALE: Locale = 'en';

export function isLocale(value: unknown): value is Locale {
  return typeof value === 'string' && (SUPPORTED_LOCALES as readonly string[]).includes(value);
}

/** The supported language of a BCP 47 tag or an LMS locale (`de`, `de-DE`, `de_AT`, `en-GB`), if there is one. */
export function localeOfTag(tag: unknown): Locale | undefined {
  if (typeof tag !== 'string' || tag.length === 0 || tag.length > 64) return undefined;
  const language = tag.trim().toLowerCase().split(/[-_]/, 1)[0];
  return isLocale(language) ? language : undefined;
}

/** The best supported language of an Accept-Language header, weighing its q-values; English when none is supported. */
export function negotiateLocale(acceptLanguage: string | readonly string[] | undefined): Locale {
  const header = Array.isArray(acceptLanguage) ? acceptLanguage.join(',') : acceptLanguage;
  if (typeof header !== 'string' || header.length === 0) return DEFAULT_LOCALE;
  let best: { locale: Locale; weight: number } | undefined;
  // A hostile header can be long; only the first few ranges matter to anyone.
  for (const range of header.slice(0, 1024).split(',').slice(0, 32)) {
    const [tag, ...parameters] = range.split(';');
    const locale = localeOfTag(tag);
    if (!locale) continue;
    const q = parameters.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    if (!Number.isFinite(weight) || weight <= 0) continue;
    if (!best || weight > best.weight) best = { locale, weight };
  }
  return best?.locale ?? DEFAULT_LOCALE;
}
