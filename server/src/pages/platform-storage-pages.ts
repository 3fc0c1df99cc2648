import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Locale } from '@exb/shared/i18n/locale.js';
import { translator } from '../i18n/translator.js';
import { STORAGE_NONCE_FIELD, STORAGE_STATE_FIELD, type PlatformStoragePut, type PlatformStorageRead } from '../lti/platform-storage.js';
import { PLATFORM_STORAGE_SCRIPT_ROUTE } from '@exb/shared/service-paths.js';
import { PLATFORM_STORAGE_SCRIPT } from './platform-storage-script.js';
import { escapeHtml, htmlSecurityHeaders, scriptSafeJson } from './shell.js';
import { paragraphsMarkup, STATIC_PAGE_STYLE, staticPageStart } from './static-page.js';

/**
 * The two short pages of a login that uses the LMS's platform storage (`lti/platform-storage.ts`); both run
 * `/lti/platform-storage.js` and are gone within a moment: the login page puts the login's entries into the storage
 * and goes on to the LMS's authorization, the launch page reads them back and posts the launch again with them.
 */
function storagePage(locale: Locale, config: Record<string, unknown>, body = ''): string {
  const t = translator(locale);
  return (
    staticPageStart(locale, t('launch:platformStorage.title'), `<style>${STATIC_PAGE_STYLE}</style>`) +
    paragraphsMarkup([t('launch:platformStorage.wait')]) +
    `<noscript>${escapeHtml(t('launch:noScript'))}</noscript>${body}</main>` +
    `<script id="exb-platform-storage" type="application/json">${scriptSafeJson(config)}</script>` +
    `<script src="${PLATFORM_STORAGE_SCRIPT_ROUTE.path}"></script></body></html>`
  );
}

function sendPage(reply: FastifyReply, lmsOrigin: string, html: string): FastifyReply {
  // The login page's address and the launch page's form carry one-time values: no referrer, never cached.
  return reply.code(200).headers(htmlSecurityHeaders(lmsOrigin)).type('text/html; charset=utf-8').send(html);
}

/** The login's page: puts the entries, then replaces itself with the LMS's authorization request. */
export function sendStoragePutPage(reply: FastifyReply, lmsOrigin: string, locale: Locale, put: PlatformStoragePut, next: string): FastifyReply {
  const config = { target: put.target, platformOrigin: put.platformOrigin, put: put.entries, next };
  return sendPage(reply, lmsOrigin, storagePage(locale, config));
}

/** The launch's page: reads the entries back and posts the launch form, with them, to the endpoint it came to. */
export function sendStorageReadPage(
  reply: FastifyReply,
  lmsOrigin: string,
  locale: Locale,
  read: PlatformStorageRead,
  launch: { action: string; idToken: string; state: string },
): FastifyReply {
  const hidden = (name: string, value: string) => `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;
  const form =
    `<form id="exb-launch-form" method="post" action="${escapeHtml(launch.action)}">` +
    hidden('id_token', launch.idToken) +
    hidden('state', launch.state) +
    hidden(STORAGE_STATE_FIELD, '') +
    hidden(STORAGE_NONCE_FIELD, '') +
    '</form>';
  const config = { target: read.target, platformOrigin: read.platformOrigin, get: { stateKey: read.stateKey, nonceKey: read.nonceKey } };
  return sendPage(reply, lmsOrigin, storagePage(locale, config, form));
}

/** `GET /lti/platform-storage.js`: the pages' script (`pages/platform-storage-script.ts`). */
export async function registerPlatformStorageScript(app: FastifyInstance): Promise<void> {
  app.get(PLATFORM_STORAGE_SCRIPT_ROUTE.path, (_request, reply) =>
    reply
      .header('content-type', 'text/javascript; charset=utf-8')
      .header('cache-control', 'public, max-age=300')
      .header('x-content-type-options', 'nosniff')
      .send(PLATFORM_STORAGE_SCRIPT),
  );
}
