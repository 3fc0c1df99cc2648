import { describe, expect, it } from 'vitest';
import { CATALOGUES, SUPPORTED_LOCALES, type CatalogueTree } from '../src/i18n/catalogues.js';

// The teacher view places links and code inside some messages with `<name>…</name>` tags (react-i18next's Trans): each
// language must use the same tags, or a link would be lost in one of them.

function entries(tree: CatalogueTree, prefix = ''): [string, string][] {
  return Object.entries(tree).flatMap(([key, value]): [string, string][] =>
    typeof value === 'string' ? [[`${prefix}${key}`, value]] : entries(value, `${prefix}${key}.`),
  );
}

const tags = (text: string) => [...text.matchAll(/<\/?(\w+)>/g)].map((match) => match[0]).sort();

describe('the teacher catalogue', () => {
  const english = new Map(entries(CATALOGUES.en.teacher as CatalogueTree));

  it.each(SUPPORTED_LOCALES.filter((locale) => locale !== 'en'))('%s places the same tags as English', (locale) => {
    const other = new Map(entries(CATALOGUES[locale].teacher as CatalogueTree));
    const differing = [...english].filter(([key, text]) => tags(text).join() !== tags(other.get(key) ?? '').join());
    expect(differing.map(([key]) => key)).toEqual([]);
  });

  it('names no tag an HTML element without content would swallow', () => {
    const voidElements = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);
    const used = [...english.values()].flatMap((text) => [...text.matchAll(/<(\w+)>/g)].map((match) => match[1]!));
    expect(used.filter((tag) => voidElements.has(tag.toLowerCase()))).toEqual([]);
  });
});
