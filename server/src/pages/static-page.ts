import type { Locale } from '@exb/shared/i18n/locale.js';
import { escapeHtml } from './shell.js';

/** The look of the pages that work without the client bundle. */
export const STATIC_PAGE_STYLE =
  'body{font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;line-height:1.5;color:#2d3b45}';

/** A page's start in `locale`, up to its `<main>` heading; `head` is extra head markup, already escaped. */
export function staticPageStart(locale: Locale, title: string, head: string): string {
  return (
    `<!doctype html><html lang="${locale}"><head><meta charset="utf-8">` +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<title>${escapeHtml(title)}</title>${head}</head><body><main><h1>${escapeHtml(title)}</h1>`
  );
}

export function paragraphsMarkup(texts: readonly string[]): string {
  return texts.map((text) => `<p>${escapeHtml(text)}</p>`).join('');
}

/**
 * A page that works without the client bundle, for places where the tool was opened outside the LMS; `head` is extra
 * head markup, already escaped.
 */
export function staticPage(locale: Locale, title: string, paragraphs: readonly string[], head = ''): string {
  return `${staticPageStart(locale, title, `<style>${STATIC_PAGE_STYLE}</style>${head}`)}${paragraphsMarkup(paragraphs)}</main></body></html>`;
}
