import { ErrorCodes, errorStatus, type ErrorCode } from '@exb/shared/error-codes.js';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError, FastifyBaseLogger } from 'fastify';
import { errorBody } from './error-body.js';

/**
 * Requests Node's HTTP parser refuses before any route runs: bad framing, oversized headers, a request that did not
 * arrive in time. Fastify's default answers them and logs nothing a production log level shows, and no route writes a
 * completion line for them; this answers in the contract's error shape and logs one line. The line names the parser's
 * code, the status and the peer, never the request's bytes (the error carries them, secrets included).
 */
export function createClientErrorHandler(logger: FastifyBaseLogger): (error: ConnectionError, socket: Socket) => void {
  return (error, socket) => {
    // A connection the peer reset, or one already closed: nothing was refused, nothing to answer.
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const refusal = refusalFor(error.code);
    logger.info(
      { code: error.code, statusCode: refusal.status, remoteAddress: socket.remoteAddress },
      'request refused before routing',
    );
    if (socket.writable) {
      const body = JSON.stringify(errorBody(refusal.errorCode, refusal.message));
      socket.write(
        `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}\r\n` +
          `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy();
  };
}

function refusalFor(code: string | undefined): { status: number; errorCode: ErrorCode; message: string } {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return { status: errorStatus(ErrorCodes.REQUEST_TIMEOUT), errorCode: ErrorCodes.REQUEST_TIMEOUT, message: 'The request did not arrive in time.' };
  }
  if (code === 'HPE_HEADER_OVERFLOW') {
    return { status: errorStatus(ErrorCodes.HEADERS_TOO_LARGE), errorCode: ErrorCodes.HEADERS_TOO_LARGE, message: 'The request headers are too large.' };
  }
  return { status: errorStatus(ErrorCodes.INVALID_REQUEST), errorCode: ErrorCodes.INVALID_REQUEST, message: 'The request is not valid HTTP.' };
}
