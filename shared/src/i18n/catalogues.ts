import { catalogue as de } from './catalogue-de.js';
import { catalogue as en } from './catalogue-en.js';
import type { Locale } from './locale.js';

export { NAMESPACES, type CatalogueTree, type Namespace } from './catalogue-namespaces.js';
export * from './locale.js';

/** Both languages, for the server and for tests; the browser loads only its own language (`catalogue-<locale>.js`). */
export const CATALOGUES = { en, de } satisfies Record<Locale, unknown>;

/** English's shape: the key set every language must have, and what typed `t()` calls are checked against. */
export type Catalogue = typeof en;
