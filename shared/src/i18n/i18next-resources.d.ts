import type { Catalogue } from './catalogues.js';

// `t('teacher:…')` is checked against the English catalogue, in the client and the server alike: a key missing there
// does not compile. Programs that translate reference this file.
declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'common';
    resources: Catalogue;
  }
}
