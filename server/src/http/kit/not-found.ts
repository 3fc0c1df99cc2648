import type { FastifyReply, FastifyRequest } from 'fastify';
import { ErrorCodes, errorStatus } from '@exb/shared/error-codes.js';
import { translator } from '../../i18n/translator.js';
import { requestLocale } from '../../security/session.js';
import { sendError } from './error-body.js';
import { isApiPath, wantsPage } from './page-request.js';
import type { ShellRenderer } from '../../pages/shell.js';

/** Renders the page a browser gets for an address that leads nowhere. */
export type NotFoundPage = (reply: FastifyReply) => FastifyReply;

/** The `not-found` view: the tool's look, a plain sentence in the request's language and the way back to the LMS. */
export function notFoundPage(shell: ShellRenderer, lmsUrl: string): NotFoundPage {
  return (reply) => {
    const locale = requestLocale(reply.request);
    const t = translator(locale);
    const title = t('launch:notFound.title');
    const page = { view: 'not-found', title, message: t('launch:notFound.message'), lmsReturnUrl: lmsUrl };
    return shell.send(reply, page, { status: errorStatus(ErrorCodes.NOT_FOUND), title, locale });
  };
}

/** `404` for an unknown address: the page for browsers (where one is given), the contract's JSON body for the rest. */
export function sendNotFound(request: FastifyRequest, reply: FastifyReply, page?: NotFoundPage): FastifyReply {
  if (page !== undefined && wantsPage(request)) return page(reply);
  const message = isApiPath(request.url) ? 'No such API route.' : 'Nothing is at this address.';
  return sendError(reply, ErrorCodes.NOT_FOUND, message);
}
