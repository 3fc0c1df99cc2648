import type { FastifyReply, FastifyRequest } from 'fastify';
import { ErrorCodes, errorStatus } from '@exb/shared/error-codes.js';
import { translator } from '../../i18n/translator.js';
import { requestLocale } from '../../security/session.js';
import { errorBody } from './error-body.js';
import { wantsPage } from './page-request.js';
import { htmlSecurityHeaders } from '../../pages/shell.js';
import { staticPage } from '../../pages/static-page.js';

/** What a client is told to wait before trying again while the database is unreachable. */
export const SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/** `503` with `Retry-After`: `{ success: false, error_code: "SERVICE_UNAVAILABLE", message }`, or a page in the tool's look. */
export function sendServiceUnavailable(request: FastifyRequest, reply: FastifyReply, lmsOrigin: string | undefined): FastifyReply {
  reply.code(errorStatus(ErrorCodes.SERVICE_UNAVAILABLE)).header('retry-after', String(SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS)).header('cache-control', 'no-store');
  if (wantsPage(request)) {
    if (lmsOrigin !== undefined) reply.headers(htmlSecurityHeaders(lmsOrigin));
    const locale = requestLocale(request);
    const t = translator(locale);
    const html = staticPage(locale, t('launch:serviceUnavailable.title'), [t('launch:serviceUnavailable.cause'), t('launch:serviceUnavailable.reload')]);
    return reply.type('text/html; charset=utf-8').send(html);
  }
  return reply.send(
    errorBody(ErrorCodes.SERVICE_UNAVAILABLE, 'The service cannot reach its database at the moment. Try again in a few seconds.'),
  );
}
