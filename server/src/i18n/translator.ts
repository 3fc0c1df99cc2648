/// <reference path="../../../shared/src/i18n/i18next-resources.d.ts" />
import { CATALOGUES, DEFAULT_LOCALE, NAMESPACES, type Locale } from '@exb/shared/i18n/catalogues.js';
import i18next, { type TFunction } from 'i18next';

// One instance for the process, loaded synchronously from the bundled catalogues: no request waits for it.
const instance = i18next.createInstance();
void instance.init({
  initAsync: false,
  resources: CATALOGUES,
  fallbackLng: DEFAULT_LOCALE,
  ns: [...NAMESPACES],
  defaultNS: 'common',
  // Pages escape what they interpolate themselves (`escapeHtml`), so values arrive here as plain text.
  interpolation: { escapeValue: false },
  returnNull: false,
});

/** The words of the server-rendered pages and the detector's prompts in `locale`. */
export function translator(locale: Locale): TFunction {
  return instance.getFixedT(locale);
}
