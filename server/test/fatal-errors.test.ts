import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../src/logger.js';
import { exitOnFatalErrors, type FatalErrorHost } from '../src/main.js';

/** The last-resort policy for an error nothing caught: log it without secrets, close, exit 1 for the supervisor. */

function harness(close: () => Promise<void>) {
  const lines: string[] = [];
  const logger = createLogger('info', new Writable({ write: (chunk: Buffer, _e, done) => (lines.push(chunk.toString()), done()) }));
  const emitter = new EventEmitter();
  const exits: number[] = [];
  let resolveExit!: (code: number) => void;
  const exited = new Promise<number>((resolve) => (resolveExit = resolve));
  const host = {
    on: (event: string, listener: (error: unknown) => void) => emitter.on(event, listener),
    exit: (code: number) => {
      exits.push(code);
      resolveExit(code);
      return undefined as never;
    },
  } as FatalErrorHost;
  return { lines, emitter, exits, exited, host, server: { logger, close } };
}

describe('exitOnFatalErrors', () => {
  it('logs an uncaught error without its other properties, closes the server, and exits with 1', async () => {
    let closed = false;
    const h = harness(async () => {
      closed = true;
    });
    exitOnFatalErrors(h.server, h.host, 1_000);
    const error = Object.assign(new Error('boom'), { code: 'E_TEST', accessToken: 'secret-token-4711', config: { password: 'p' } });
    h.emitter.emit('uncaughtException', error);
    expect(await h.exited).toBe(1);
    expect(closed).toBe(true);
    const entry = JSON.parse(h.lines[0]!) as { level: number; msg: string; kind: string; fault: Record<string, unknown> };
    expect(entry).toMatchObject({ level: 60, kind: 'uncaughtException', fault: { type: 'Error', code: 'E_TEST', message: 'boom' } });
    expect(h.lines.join('')).not.toContain('secret-token-4711');
  });

  it('exits after the grace period when closing hangs, and at once on a second fatal error', async () => {
    const h = harness(() => new Promise<void>(() => undefined));
    exitOnFatalErrors(h.server, h.host, 50);
    h.emitter.emit('unhandledRejection', 'not an error');
    expect(await h.exited).toBe(1);
    h.emitter.emit('uncaughtException', new Error('again'));
    expect(h.exits).toEqual([1, 1]);
    expect(JSON.parse(h.lines[0]!)).toMatchObject({ kind: 'unhandledRejection', fault: { type: 'string' } });
  });
});
