import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { DEFAULT_LOCALE, type Locale } from '@exb/shared/i18n/locale.js';
import { translator } from '../i18n/translator.js';
import { requestLocale } from '../security/session.js';

const manifestSchema = z.record(
  z.string(),
  z.object({ file: z.string(), css: z.array(z.string()).optional(), isEntry: z.boolean().optional() }),
);

export const CLIENT_ENTRY = 'src/main.tsx';

export interface ClientAssets {
  script: string | undefined;
  styles: string[];
}

/** Reads the Vite manifest once; without a built client the shells still render, telling the operator what to run. */
export function readClientAssets(clientDistDir: string): ClientAssets {
  const manifestPath = path.join(clientDistDir, '.vite', 'manifest.json');
  if (!existsSync(manifestPath)) return { script: undefined, styles: [] };
  const manifest = manifestSchema.parse(JSON.parse(readFileSync(manifestPath, 'utf8')));
  const entry = manifest[CLIENT_ENTRY];
  if (!entry) throw new Error(`client manifest has no entry ${CLIENT_ENTRY}`);
  return { script: `/assets/${path.basename(entry.file)}`, styles: (entry.css ?? []).map((file) => `/assets/${path.basename(file)}`) };
}

/** JSON that is safe inside a `<script>` element: nothing in it can close the element or start markup. */
export function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

export function escapeHtml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

export interface ShellOptions {
  /** The LMS origin, allowed to frame the tool and to receive form posts. */
  lmsOrigin: string;
}

/** Headers every HTML page of the service sends: a strict CSP, no referrer leaks, never cached. */
export function htmlSecurityHeaders(lmsOrigin: string): Record<string, string> {
  const csp = [
    "default-src 'none'",
    "script-src 'self'",
    // The component library injects its styles at run time.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    `form-action 'self' ${lmsOrigin}`,
    `frame-ancestors 'self' ${lmsOrigin}`,
  ].join('; ');
  return {
    'content-security-policy': csp,
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
    'cache-control': 'no-store',
  };
}

export type ViewData = { view: string } & Record<string, unknown>;

/** The one mechanism that renders every view: a small HTML page carrying the bootstrap JSON and the client bundle. */
export class ShellRenderer {
  private readonly headers: Record<string, string>;
  private readonly script: string;
  private readonly frames = new Map<Locale, { head: string; serviceTitle: string; body: string }>();

  constructor(
    private readonly assets: ClientAssets,
    options: ShellOptions,
  ) {
    this.headers = htmlSecurityHeaders(options.lmsOrigin);
    this.script = assets.script
      ? `<script type="module" src="${escapeHtml(assets.script)}"></script>`
      : '<p>The client has not been built. Run <code>npm run build</code>.</p>';
  }

  /** The page in `locale`; without a title, the service's name in that language. */
  html(data: ViewData, title?: string, locale: Locale = DEFAULT_LOCALE): string {
    const { head, serviceTitle, body } = this.frame(locale);
    return (
      `${head}<title>${title === undefined ? serviceTitle : escapeHtml(title)}</title>${body}` +
      `<script id="exb-bootstrap" type="application/json">${scriptSafeJson({ ...data, locale })}</script>${this.script}</body></html>`
    );
  }

  /** What every page in a language shares, put together once per language: a launch page costs its bootstrap alone. */
  private frame(locale: Locale): { head: string; serviceTitle: string; body: string } {
    let frame = this.frames.get(locale);
    if (frame === undefined) {
      const t = translator(locale);
      const styles = this.assets.styles.map((href) => `<link rel="stylesheet" href="${escapeHtml(href)}">`).join('');
      frame = {
        head:
          `<!doctype html><html lang="${locale}"><head><meta charset="utf-8">` +
          '<meta name="viewport" content="width=device-width, initial-scale=1">',
        serviceTitle: escapeHtml(t('serviceName')),
        body: `${styles}</head><body><div id="root"></div><noscript>${escapeHtml(t('launch:noScript'))}</noscript>`,
      };
      this.frames.set(locale, frame);
    }
    return frame;
  }

  /**
   * Sends a view in the request's language (`requestLocale`), or in `options.locale` where the caller knows better
   * (a launch speaks its own locale before it has a session).
   */
  send(reply: FastifyReply, data: ViewData, options: { status?: number; title?: string; locale?: Locale } = {}): FastifyReply {
    return reply
      .code(options.status ?? 200)
      .headers(this.headers)
      .type('text/html; charset=utf-8')
      .send(this.html(data, options.title, options.locale ?? requestLocale(reply.request)));
  }
}
