import { describe, expect, it } from 'vitest';
import { CATALOGUES, NAMESPACES, SUPPORTED_LOCALES, type CatalogueTree } from '../src/i18n/catalogues.js';

function flatten(tree: CatalogueTree, prefix = ''): Map<string, string> {
  const entries = new Map<string, string>();
  for (const [key, value] of Object.entries(tree)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'string') entries.set(path, value);
    else for (const [nested, text] of flatten(value, path)) entries.set(nested, text);
  }
  return entries;
}

const placeholders = (text: string) => [...text.matchAll(/\{\{\s*([\w.]+)[^}]*\}\}/g)].map((m) => m[1]).sort();

const catalogue = (locale: (typeof SUPPORTED_LOCALES)[number], namespace: (typeof NAMESPACES)[number]) =>
  flatten(CATALOGUES[locale][namespace] as CatalogueTree);

describe('message catalogues', () => {
  describe.each(NAMESPACES)('namespace %s', (namespace) => {
    const english = catalogue('en', namespace);

    it.each(SUPPORTED_LOCALES.filter((l) => l !== 'en'))('%s has exactly the English keys', (locale) => {
      const other = catalogue(locale, namespace);
      expect({ missing: [...english.keys()].filter((k) => !other.has(k)) }).toEqual({ missing: [] });
      expect({ extra: [...other.keys()].filter((k) => !english.has(k)) }).toEqual({ extra: [] });
    });

    it.each(SUPPORTED_LOCALES.filter((l) => l !== 'en'))('%s uses the same values in each message', (locale) => {
      const other = catalogue(locale, namespace);
      const differing = [...english].filter(([key, text]) => other.has(key) && placeholders(text).join() !== placeholders(other.get(key)!).join());
      expect(differing.map(([key]) => key)).toEqual([]);
    });

    it.each([...SUPPORTED_LOCALES])('%s has no empty message', (locale) => {
      const empty = [...catalogue(locale, namespace)].filter(([, text]) => text.trim().length === 0);
      expect(empty.map(([key]) => key)).toEqual([]);
    });
  });
});
