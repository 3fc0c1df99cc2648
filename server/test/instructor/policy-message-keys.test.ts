import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { COURSE, createInstructorBed, type InstructorBed } from './harness.js';

// A policy refusal reaches the typed client with the message's key and values, so the teacher view says it in the
// page's language; the contract's REST answers keep the English message and nothing more.

describe('policy refusals carry their message key to the typed client', () => {
  let t: InstructorBed;

  beforeAll(async () => {
    t = await createInstructorBed();
  });
  afterAll(() => t?.close());
  beforeEach(async () => {
    await t.reset();
    await t.grant();
    await t.discover();
  });

  const saveDefaultsTrpc = (input: object) =>
    t.app.inject({
      method: 'POST',
      url: '/trpc/instructor.courseDefaults.save',
      headers: { cookie: t.cookie, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' },
      payload: JSON.stringify({ courseId: COURSE, ...input }),
    });
  const trpcError = (response: { json(): unknown }) =>
    (response.json() as { error: { message: string; data: Record<string, unknown> } }).error;

  it('for a rule broken inside the input schema', async () => {
    const response = await saveDefaultsTrpc({ urlRules: [{ match: 'exact', value: 'http://insecure.example.com/page' }] });
    expect(response.statusCode).toBe(400);
    expect(trpcError(response).message).toBe('Only exact https:// URLs are allowed');
    expect(trpcError(response).data).toMatchObject({ errorCode: 'INVALID_EXB_URL_POLICY', messageKey: 'url.httpsOnly', path: ['urlRules', 0, 'value'] });
  });

  it('for a rule a domain service checks, with nested values', async () => {
    const response = await saveDefaultsTrpc({ externalTools: [{ label: 'Calculator', url: 'http://calc.example.com/app' }] });
    expect(response.statusCode).toBe(400);
    expect(trpcError(response).message).toBe('Launch address: Only exact https:// URLs are allowed');
    expect(trpcError(response).data).toMatchObject({
      errorCode: 'INVALID_EXB_TOOL_POLICY',
      messageKey: 'tool.launchAddress',
      values: { reason: { messageKey: 'url.httpsOnly' } },
      path: ['externalTools', 0, 'url'],
    });
  });

  it('for a password schema that words its own refusal', async () => {
    const response = await saveDefaultsTrpc({ quitPassword: 'sortie-élève' });
    expect(response.statusCode).toBe(400);
    expect(trpcError(response).data).toMatchObject({ messageKey: 'password.printableAscii' });
    // The field is named where the typed client reads a failed input check: the issue list in the message.
    expect(JSON.parse(trpcError(response).message)[0]).toMatchObject({ path: ['quitPassword'], message: 'Use printable ASCII characters only' });
  });

  it('but not in the REST answer, whose body stays as the contract has it', async () => {
    const response = await t.request('PUT', `/api/quizzes/course/${COURSE}/defaults`, {
      body: { urlRules: [{ match: 'exact', value: 'http://insecure.example.com/page' }] },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ success: false, error_code: 'INVALID_EXB_URL_POLICY', message: 'Only exact https:// URLs are allowed' });
  });
});
