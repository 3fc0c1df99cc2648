import type { FastifyRequest } from 'fastify';
import { localeOfTag, negotiateLocale, type Locale } from '@exb/shared/i18n/locale.js';

/**
 * The language of a login's or launch's pages before the launch has a session: the launch's own locale (once its
 * claims are verified), else the browser's Accept-Language. A session some earlier launch left behind does not count.
 */
export function launchLocale(request: FastifyRequest, claimedLocale?: unknown): Locale {
  return localeOfTag(claimedLocale) ?? negotiateLocale(request.headers['accept-language']);
}

