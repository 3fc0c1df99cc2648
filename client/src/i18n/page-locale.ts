import { DEFAULT_LOCALE, isLocale, localeOfTag, type Locale } from '@exb/shared/i18n/locale.js';
import type { Bootstrap } from '../bootstrap';

/**
 * The server decides a page's language (the launch's locale, else the browser's Accept-Language) and writes it into the
 * bootstrap; a page whose data could not be read falls back to the browser's own preference.
 */
export function pageLocale(bootstrap: Bootstrap | undefined): Locale {
  if (bootstrap && isLocale(bootstrap.locale)) return bootstrap.locale;
  for (const tag of navigator.languages ?? []) {
    const locale = localeOfTag(tag);
    if (locale) return locale;
  }
  return DEFAULT_LOCALE;
}
