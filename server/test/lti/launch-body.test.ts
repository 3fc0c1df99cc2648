import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAUNCH_BODY_LIMIT_BYTES } from '../../src/http/kit/launch-body.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { bootstrapOf } from './launch-harness.js';

// An oversized launch form is a launch refused at step 1 of the chain (the envelope check), answered with the launch's
// HTML explanation: never the generic 413 JSON body of the other routes.

const STATE = 'A'.repeat(43);
const TOKEN = 'aaaa.bbbb.cccc';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describe('oversized launch forms', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ listen: true });
  });
  afterAll(() => t.close());

  const post = (path: string, body: string, headers: Record<string, string> = FORM) =>
    fetch(`${t.url}${path}`, { method: 'POST', headers, body, redirect: 'manual' });

  async function expectEnvelopeRefusal(response: Response, message: RegExp) {
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const bootstrap = bootstrapOf(await response.text());
    expect(bootstrap).toMatchObject({ view: 'lti-error', errorCode: 'LTI_LAUNCH_INVALID_ENVELOPE' });
    expect(bootstrap.message).toMatch(message);
  }

  it.each([
    ['/lti/launch', 'id_token'],
    ['/lti/launch', 'state'],
    ['/exb/launch/classicquiz_201', 'id_token'],
    ['/exb/launch/newquiz:101:301', 'state'],
  ])('POST %s with a 300 KB %s gets the envelope check’s HTML 400', async (path, field) => {
    const big = 'a'.repeat(300 * 1024);
    const form = new URLSearchParams(field === 'id_token' ? { id_token: `${big}.b.c`, state: STATE } : { id_token: TOKEN, state: big });
    await expectEnvelopeRefusal(await post(path, form.toString()), field === 'id_token' ? /larger than this tool accepts/ : /state is not one this tool issued/);
  });

  it('answers a form above the hard cap with the launch’s HTML 400 too, without reading it', async () => {
    const body = `id_token=${'a'.repeat(LAUNCH_BODY_LIMIT_BYTES + 1024)}&state=${STATE}`;
    for (const url of ['/lti/launch', '/exb/launch/classicquiz_201']) {
      const response = await t.app.inject({ method: 'POST', url, headers: FORM, payload: body });
      expect(response.statusCode).toBe(400);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(bootstrapOf(response.body)).toMatchObject({ view: 'lti-error', errorCode: 'LTI_LAUNCH_INVALID_ENVELOPE' });
    }
  });

  it('stops reading a streamed form without a length once it passes the hard cap', async () => {
    const answer = await new Promise<{ status: number; type: string; body: string }>((resolve, reject) => {
      const request = httpRequest(`${t.url}/lti/launch`, { method: 'POST', headers: { ...FORM, 'transfer-encoding': 'chunked' } }, (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, type: String(response.headers['content-type']), body }));
      });
      // The server answers and closes while this side may still be writing.
      request.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error)));
      const chunk = 'a'.repeat(64 * 1024);
      request.write('id_token=');
      let sent = 0;
      const pump = () => {
        while (sent <= LAUNCH_BODY_LIMIT_BYTES + chunk.length && !request.destroyed) {
          sent += chunk.length;
          if (!request.write(chunk)) return void request.once('drain', pump);
        }
        request.end();
      };
      pump();
    });
    expect(answer.status).toBe(400);
    expect(answer.type).toBe('text/html; charset=utf-8');
    expect(bootstrapOf(answer.body)).toMatchObject({ view: 'lti-error', errorCode: 'LTI_LAUNCH_INVALID_ENVELOPE' });
  });

  it('answers an unreadable launch form with the launch’s HTML 400', async () => {
    await expectEnvelopeRefusal(await post('/lti/launch', '<id_token/>', { 'content-type': 'application/xml' }), /could not be read/);
    await expectEnvelopeRefusal(await post('/lti/launch', '{"id_token":', { 'content-type': 'application/json' }), /could not be read/);
    await expectEnvelopeRefusal(await post('/lti/launch', 'id_token=x', { 'content-type': 'text/plain' }), /does not carry an id_token/);
  });

  it('keeps the smaller limit and the JSON answer on other routes', async () => {
    const response = await post('/api/exb/check-proof', JSON.stringify({ configKeyHash: 'a'.repeat(300 * 1024), url: 'x' }), {
      'content-type': 'application/json',
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ success: false, error_code: 'PAYLOAD_TOO_LARGE' });
  });
});
