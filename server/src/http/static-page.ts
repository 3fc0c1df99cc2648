import { escapeHtml } from '../pages/shell.js';

/** A page that works without the client bundle, for places where the tool was opened outside the LMS. */
export function staticPage(title: string, paragraphs: string[]): string {
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<title>${escapeHtml(title)}</title>` +
    '<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;line-height:1.5;color:#2d3b45}</style>' +
    `</head><body><main><h1>${escapeHtml(title)}</h1>${paragraphs.map((text) => `<p>${escapeHtml(text)}</p>`).join('')}</main></body></html>`
  );
}
