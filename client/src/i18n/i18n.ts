/// <reference path="../../../shared/src/i18n/i18next-resources.d.ts" />
import { DEFAULT_LOCALE, NAMESPACES, type Catalogue, type Locale } from '@exb/shared/i18n/catalogues.js';
import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';

// Only the page's own language is downloaded: each catalogue is a chunk of its own.
const LOADERS: Record<Locale, () => Promise<{ catalogue: Catalogue }>> = {
  en: () => import('@exb/shared/i18n/catalogue-en.js'),
  de: () => import('@exb/shared/i18n/catalogue-de.js'),
};

/**
 * Starts the page's translations before the first render. Every key exists in every language (a test checks it), so
 * English is only the fallback for a locale the service does not speak.
 */
export async function startI18n(locale: Locale): Promise<void> {
  const { catalogue } = await LOADERS[locale]();
  await i18next.use(initReactI18next).init({
    lng: locale,
    fallbackLng: DEFAULT_LOCALE,
    supportedLngs: Object.keys(LOADERS),
    resources: { [locale]: catalogue },
    ns: [...NAMESPACES],
    defaultNS: 'common',
    // React escapes what it renders; escaping here too would show entities.
    interpolation: { escapeValue: false },
    returnNull: false,
  });
  document.documentElement.lang = locale;
}

export { i18next };
