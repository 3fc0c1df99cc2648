import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { translator } from '../i18n/translator.js';
import { requestLocale } from '../security/session.js';
import { errorBody } from './error-body.js';
import { wantsPage } from './page-request.js';
import { htmlSecurityHeaders } from './shell.js';
import { staticPage } from './static-page.js';

/** What a client is told to wait before trying again while the database is unreachable. */
export const SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/** While an outage lasts, one log line per this interval; a line per refused request would flood the log. */
const OUTAGE_LOG_INTERVAL_MS = 60_000;

/**
 * Logs a database outage as one warning when the first request is refused, then at most one a minute (with the number of
 * requests refused since) while it lasts: no stack, the driver's code only.
 */
export class OutageLog {
  private lastLoggedAt: number | null = null;
  private refusedSinceLog = 0;

  constructor(
    private readonly logger: Pick<Logger, 'warn'>,
    private readonly now: () => number = Date.now,
  ) {}

  refused(error: unknown): void {
    this.refusedSinceLog += 1;
    const now = this.now();
    if (this.lastLoggedAt !== null && now - this.lastLoggedAt < OUTAGE_LOG_INTERVAL_MS) return;
    const code = (error as { code?: unknown }).code;
    this.logger.warn(
      { code: typeof code === 'string' ? code : undefined, refused: this.refusedSinceLog },
      `database unreachable (${String((error as { message?: unknown }).message ?? error)}); answering 503 until it is back`,
    );
    this.lastLoggedAt = now;
    this.refusedSinceLog = 0;
  }
}

/** `503` with `Retry-After`: `{ success: false, error_code: "SERVICE_UNAVAILABLE", message }`, or a page in the tool's look. */
export function sendServiceUnavailable(request: FastifyRequest, reply: FastifyReply, lmsOrigin: string | undefined): FastifyReply {
  reply.code(503).header('retry-after', String(SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS)).header('cache-control', 'no-store');
  if (wantsPage(request)) {
    if (lmsOrigin !== undefined) reply.headers(htmlSecurityHeaders(lmsOrigin));
    const locale = requestLocale(request);
    const t = translator(locale);
    const html = staticPage(locale, t('launch:serviceUnavailable.title'), [t('launch:serviceUnavailable.cause'), t('launch:serviceUnavailable.reload')]);
    return reply.type('text/html; charset=utf-8').send(html);
  }
  return reply.send(
    errorBody('SERVICE_UNAVAILABLE', 'The service cannot reach its database at the moment. Try again in a few seconds.'),
  );
}
