import { DEFAULT_LOCALE, NAMESPACES } from '@exb/shared/i18n/catalogues.js';
import { catalogue } from '@exb/shared/i18n/catalogue-en.js';
import { i18next } from '../../src/i18n/i18n';

/** The page's translations in English, as `startI18n` starts them, without the document it also marks. */
export async function startEnglish(): Promise<void> {
  if (i18next.isInitialized) return;
  await i18next.init({
    lng: DEFAULT_LOCALE,
    fallbackLng: DEFAULT_LOCALE,
    resources: { [DEFAULT_LOCALE]: catalogue },
    ns: [...NAMESPACES],
    defaultNS: 'common',
    interpolation: { escapeValue: false },
    returnNull: false,
  });
}

export { catalogue };
