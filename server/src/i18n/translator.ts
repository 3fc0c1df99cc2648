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

/** A `t` of every namespace: `t('launch:…')` is type-checked like `t('…')` of the default namespace. */
export type Translate = TFunction<typeof NAMESPACES>;

const fixed = new Map<Locale, Translate>();

/** The words of the server-rendered pages and the detector's prompts in `locale`; one function per language. */
export function translator(locale: Locale): Translate {
  let t = fixed.get(locale);
  if (t === undefined) {
    t = instance.getFixedT(locale) as Translate;
    fixed.set(locale, t);
  }
  return t;
}
