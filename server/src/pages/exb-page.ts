import type { Locale } from '@exb/shared/i18n/locale.js';
import { escapeHtml, scriptSafeJson } from './shell.js';
import { paragraphsMarkup, STATIC_PAGE_STYLE, staticPageStart } from './static-page.js';

export interface PageLink {
  readonly href: string;
  readonly text: string;
  /** Open in the top window (links back into the LMS). */
  readonly top?: boolean;
  /** Open in a window of its own (a stand-in for another application). */
  readonly newWindow?: boolean;
  /** Drawn as a plain link rather than a button: not the page's main step. */
  readonly secondary?: boolean;
}

function linkMarkup(link: PageLink): string {
  // Links back into the LMS leave the tool frame, so the LMS is not shown inside itself.
  const target = link.top ? ' target="_top"' : link.newWindow ? ' target="_blank" rel="noopener"' : '';
  return `<p><a${link.secondary ? '' : ' class="button"'} href="${escapeHtml(link.href)}"${target}>${escapeHtml(link.text)}</a></p>`;
}

/**
 * A page of the exam-browser flow that works without the client bundle (the exam browser may block scripts of other
 * hosts, and these pages must work in any state), in `locale`. Data for tests and scripts travels in the usual
 * bootstrap element, which carries the page's locale like the shell's.
 */
export function exbPage(options: {
  locale: Locale;
  title: string;
  paragraphs: readonly string[];
  links?: readonly PageLink[];
  /** A boxed section after the links, for what only a development testbed shows. */
  aside?: { readonly heading: string; readonly paragraphs: readonly string[]; readonly links: readonly PageLink[] };
  bootstrap: { view: string } & Record<string, unknown>;
  /** Extra head markup, already escaped. */
  head?: string;
}): string {
  const { locale } = options;
  const links = (options.links ?? []).map(linkMarkup).join('');
  const style =
    `<style>${STATIC_PAGE_STYLE}` +
    'a.button{display:inline-block;padding:.6rem 1rem;border-radius:.3rem;background:#0374b5;color:#fff;text-decoration:none}' +
    'aside{margin-top:2rem;padding:0 1rem;border:1px dashed #8b969e;border-radius:.3rem;background:#f5f5f5}' +
    'aside h2{font-size:1.1rem;margin:.8rem 0 0}a{color:#0374b5}a.button{color:#fff}</style>';
  return (
    staticPageStart(locale, options.title, `${options.head ?? ''}${style}`) +
    paragraphsMarkup(options.paragraphs) +
    links +
    (options.aside === undefined ? '' : asideMarkup(options.aside)) +
    `</main><script id="exb-bootstrap" type="application/json">${scriptSafeJson({ ...options.bootstrap, locale })}</script></body></html>`
  );
}

function asideMarkup(aside: NonNullable<Parameters<typeof exbPage>[0]['aside']>): string {
  return (
    `<aside aria-labelledby="exb-page-aside"><h2 id="exb-page-aside">${escapeHtml(aside.heading)}</h2>` +
    paragraphsMarkup(aside.paragraphs) +
    aside.links.map(linkMarkup).join('') +
    '</aside>'
  );
}
