import { Writable } from 'node:stream';
import Fastify, { LogController, type FastifyBaseLogger } from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { lazyRequestLoggerFactory } from '../../src/http/kit/request-logger.js';
import { createLogger } from '../../src/logger.js';

/** The per-request logger: made only when a request logs, and then exactly the child Fastify would have made. */

function capture(level: string) {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
      callback();
    },
  });
  const logger = createLogger(level, destination);
  const child = vi.spyOn(logger, 'child');
  return { logger, lines, child };
}

let app: ReturnType<typeof Fastify> | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function appWith(level: string) {
  const log = capture(level);
  app = Fastify({
    loggerInstance: log.logger as FastifyBaseLogger,
    // The request-completed lines stay out of the way; the option now lives on the log controller.
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: () => 'request-1',
    childLoggerFactory: lazyRequestLoggerFactory(),
  });
  app.get('/quiet', async () => ({ ok: true }));
  app.get('/talks', async (request) => {
    request.log.info({ grant: { accessToken: 'secret-value' }, step: 'one' }, 'handled');
    request.log.debug('not at info');
    request.log.child({ part: 'inner' }).warn('nested');
    return { ok: true };
  });
  app.get('/own-level', { logLevel: 'error' }, async (request) => {
    request.log.warn('below the route level');
    request.log.error('at the route level');
    return { ok: true };
  });
  await app.ready();
  // Fastify makes loggers of its own while it starts; only the requests' count here.
  log.child.mockClear();
  return log;
}

describe('the lazy request logger', () => {
  it('makes no child logger for a request that does not log', async () => {
    const log = await appWith('info');
    expect((await app!.inject({ method: 'GET', url: '/quiet' })).statusCode).toBe(200);
    expect(log.child).not.toHaveBeenCalled();
    expect(log.lines).toEqual([]);
  });

  it('writes with the request id, redacts as the parent does, and skips levels the parent does not write', async () => {
    const log = await appWith('info');
    expect((await app!.inject({ method: 'GET', url: '/talks' })).statusCode).toBe(200);
    expect(log.lines.map((line) => [line.msg, line.reqId, line.level])).toEqual([
      ['handled', 'request-1', 30],
      ['nested', 'request-1', 40],
    ]);
    expect(log.lines[0]).toMatchObject({ grant: { accessToken: '[redacted]' }, step: 'one' });
    expect(log.lines[1]).toMatchObject({ part: 'inner' });
    // One child for the request, made once for its three calls, then the nested one (children share the spied method).
    expect(log.child.mock.calls.map(([bindings]) => bindings)).toEqual([{ reqId: 'request-1' }, { part: 'inner' }]);
  });

  it('writes debug lines when the parent is at debug', async () => {
    const log = await appWith('debug');
    await app!.inject({ method: 'GET', url: '/talks' });
    expect(log.lines.map((line) => line.msg)).toContain('not at info');
  });

  it('gives a route with its own log level a real child at that level', async () => {
    const log = await appWith('info');
    await app!.inject({ method: 'GET', url: '/own-level' });
    expect(log.lines.map((line) => [line.msg, line.reqId])).toEqual([['at the route level', 'request-1']]);
  });
});
