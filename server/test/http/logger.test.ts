import { Writable } from 'node:stream';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createLogger, redactUrl } from '../../src/logger.js';

function capture(): { lines: Record<string, unknown>[]; logger: ReturnType<typeof createLogger> } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: createLogger('info', stream) };
}

describe('log redaction', () => {
  it('keeps the code of a logged error, as PostgreSQL and Node report it', async () => {
    const { lines, logger } = capture();
    const client = new pg.Client({ host: '127.0.0.1', port: 1, user: 'postgres' });
    const refused = await client.connect().then(() => null, (error: unknown) => error);
    const failed = Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
    logger.error({ err: refused }, 'connect failed');
    logger.error({ err: failed }, 'statement failed');
    expect(lines.map((line) => (line.err as { code?: unknown }).code)).toEqual(['ECONNREFUSED', '57P01']);
  });

  it('still hides OAuth codes and states in logged queries and bodies, and secrets anywhere', () => {
    const { lines, logger } = capture();
    logger.info({ query: { code: 'oauth-code-4711', state: 'state-4711' }, body: { code: 'body-code-4711' } }, 'callback');
    logger.info({ request: { query: { code: 'nested-code-4711' } }, token: { accessToken: 'at-4711', refresh_token: 'rt-4711' } }, 'nested');
    const text = JSON.stringify(lines);
    for (const secret of ['oauth-code-4711', 'state-4711', 'body-code-4711', 'nested-code-4711', 'at-4711', 'rt-4711']) {
      expect(text).not.toContain(secret);
    }
    expect(lines[0]).toMatchObject({ query: { code: '[redacted]', state: '[redacted]' }, body: { code: '[redacted]' } });
  });
  it('hides a session token carried in a navigation’s query, in its logged URL and in a logged query', () => {
    const { lines, logger } = capture();
    const url = '/exb/launch/201?session_token=token-4711abcdefghijklmnopqrstuvwxyz0123&lang=de';
    expect(redactUrl(url)).toBe('/exb/launch/201?session_token=[redacted]&lang=[redacted]');
    logger.info({ req: { method: 'GET', url, id: 'r1' } }, 'request');
    logger.info({ query: { session_token: 'query-token-4711' }, bootstrap: { sessionToken: 'bootstrap-token-4711' } }, 'query');
    const text = JSON.stringify(lines);
    for (const secret of ['token-4711', 'query-token-4711', 'bootstrap-token-4711']) expect(text).not.toContain(secret);
    expect(lines[0]).toMatchObject({ req: { url: '/exb/launch/201?session_token=[redacted]&lang=[redacted]' } });
  });
});
