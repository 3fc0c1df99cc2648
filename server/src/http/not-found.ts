import type { FastifyReply, FastifyRequest } from 'fastify';
import { ErrorCodes } from '@exb/shared/error-codes.js';
import { errorBody } from './error-body.js';
import { isApiPath, wantsPage } from './page-request.js';
import type { ShellRenderer } from '../pages/shell.js';

/** Renders the page a browser gets for an address that leads nowhere. */
export type NotFoundPage = (reply: FastifyReply) => FastifyReply;

/** The `not-found` view: the tool's look, a plain sentence and the way back to the LMS. */
export function notFoundPage(shell: ShellRenderer, lmsUrl: string): NotFoundPage {
  return (reply) => shell.send(reply, { view: 'not-found', lmsReturnUrl: lmsUrl }, { status: 404, title: 'Page not found' });
}

/** `404` for an unknown address: the page for browsers (where one is given), the contract's JSON body for the rest. */
export function sendNotFound(request: FastifyRequest, reply: FastifyReply, page?: NotFoundPage): FastifyReply {
  if (page !== undefined && wantsPage(request)) return page(reply);
  const message = isApiPath(request.url) ? 'No such API route.' : 'Nothing is at this address.';
  return reply.code(404).send(errorBody(ErrorCodes.NOT_FOUND, message));
}
