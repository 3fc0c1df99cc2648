import type { FastifyReply } from 'fastify';

/** The client closed its connection before its answer was sent: nothing is left to spend a one-time token for. */
export class ClientGoneError extends Error {
  constructor() {
    super('the client closed the connection before the answer was sent');
    this.name = 'ClientGoneError';
  }
}

/**
 * A signal that aborts (with {@link ClientGoneError}) when the client's connection closes before its answer is
 * complete. Spending statements check it right before they are sent: a download link, a proof or a handoff key spent
 * for a client that gave up (it waited for a slow database) would be lost to the student, who then retries with it.
 * The request stream cannot tell: it counts as destroyed as soon as its body was read, so the response is watched.
 */
export function clientSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  const response = reply.raw;
  if (response.destroyed) controller.abort(new ClientGoneError());
  else {
    response.once('close', () => {
      if (!response.writableFinished) controller.abort(new ClientGoneError());
    });
  }
  return controller.signal;
}
