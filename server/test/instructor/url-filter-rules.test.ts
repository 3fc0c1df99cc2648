import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { COURSE, createInstructorBed, type InstructorBed } from './harness.js';

// Exact URLs the exam browser's filter reads differently than "this one page" are refused when an instructor saves a
// policy, with the field they belong to; policies stored before keep loading.

const DEFAULTS = `/api/quizzes/course/${COURSE}/defaults`;
const STRUCTURED = '/api/quizzes/exb-config-structured?userId=2';

const WHOLE_HOST = 'https://tool.example.com/?lang=en';
const ENCODED = 'https://tool.example.com/files/a%2Fb';
const PLUS = 'https://tool.example.com/search?q=a+b';

describe('URL rules the exam browser filter reads differently (instructor routes)', () => {
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

  const saveDefaults = (body: unknown) => t.request('PUT', DEFAULTS, { body });
  /** The typed client's call of the same procedure, as the policy editor makes it. */
  const saveDefaultsTrpc = (input: unknown) =>
    t.app.inject({
      method: 'POST',
      url: '/trpc/instructor.courseDefaults.save',
      headers: { cookie: t.cookie, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' },
      payload: JSON.stringify({ courseId: COURSE, ...(input as object) }),
    });
  const trpcError = (response: { json(): unknown }) =>
    (response.json() as { error: { message: string; data: { errorCode?: string; path?: unknown[]; httpStatus: number } } }).error;

  it.each([
    ['a page whose path is "/" (the whole host)', WHOLE_HOST, /every page of a site.*add it as a whole site/],
    ['an encoded reserved character', ENCODED, /decoded form/],
    ['a "+"', PLUS, /decoded form/],
  ])('refuses %s in the course URL rules with INVALID_EXB_URL_POLICY, saving nothing', async (_name, url, message) => {
    const response = await saveDefaults({ urlRules: [{ match: 'exact', value: 'https://tool.example.com/app' }, { match: 'exact', value: url }], setupCompleted: true });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ success: false, error_code: 'INVALID_EXB_URL_POLICY', message: expect.stringMatching(message) });
    expect(await t.settings.loadCourseDefaults(COURSE)).toBeNull();
  });

  it('refuses them in one assessment’s policy too, and accepts the working alternatives', async () => {
    for (const url of [WHOLE_HOST, ENCODED, PLUS]) {
      const response = await t.request('POST', STRUCTURED, { body: { quizId: '201', urlRules: [{ match: 'exact', value: url }] } });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ success: false, error_code: 'INVALID_EXB_URL_POLICY' });
    }
    expect(await t.settings.loadAssessmentSettings(COURSE, 'classicquiz_201')).toBeNull();

    const alternatives = [
      { match: 'domain', value: 'tool.example.com', broadDomainConfirmed: true },
      { match: 'exact', value: 'https://tool.example.com/files/a/b' },
      { match: 'exact', value: 'https://tool.example.com/Search?q=a' },
    ];
    const saved = await t.request('POST', STRUCTURED, { body: { quizId: '201', urlRules: alternatives } });
    expect(saved.statusCode).toBe(200);
    expect((await t.settings.loadAssessmentSettings(COURSE, 'classicquiz_201'))?.urlRules).toEqual(alternatives);
  });

  it('refuses a tool at the site root unless one of its domain rules allows the host', async () => {
    const refused = await saveDefaults({ externalTools: [{ label: 'Calculator', url: 'https://calc.example.com/' }] });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ success: false, error_code: 'INVALID_EXB_TOOL_POLICY' });
    const plus = await saveDefaults({
      externalTools: [{ label: 'Calculator', url: 'https://calc.example.com/app', resourceRules: [{ match: 'exact', value: PLUS }] }],
    });
    expect(plus.json()).toMatchObject({ success: false, error_code: 'INVALID_EXB_TOOL_POLICY' });
    expect(await t.settings.loadCourseDefaults(COURSE)).toBeNull();

    const covered = await saveDefaults({
      externalTools: [
        { label: 'Calculator', url: 'https://calc.example.com/', resourceRules: [{ match: 'domain', value: 'calc.example.com', broadDomainConfirmed: true }] },
      ],
    });
    expect(covered.statusCode).toBe(200);
    expect(covered.json().defaults.externalTools[0]).toMatchObject({ url: 'https://calc.example.com/' });
  });

  it('names the refused field to the policy editor: URL rules and tool rules alike', async () => {
    const rule = await saveDefaultsTrpc({ urlRules: [{ match: 'exact', value: 'https://tool.example.com/app' }, { match: 'exact', value: WHOLE_HOST }] });
    expect(rule.statusCode).toBe(400);
    expect(trpcError(rule).data).toMatchObject({ errorCode: 'INVALID_EXB_URL_POLICY', path: ['urlRules', 1, 'value'] });
    expect(trpcError(rule).message).toMatch(/every page of a site/);

    const tool = await saveDefaultsTrpc({
      externalTools: [
        { label: 'Notes', url: 'https://notes.example.com/app' },
        { label: 'Calculator', url: 'https://calc.example.com/app', resourceRules: [{ match: 'exact', value: ENCODED }] },
      ],
    });
    expect(tool.statusCode).toBe(400);
    expect(trpcError(tool).data).toMatchObject({ errorCode: 'INVALID_EXB_TOOL_POLICY', path: ['externalTools', 1, 'resourceRules', 0, 'value'] });
    expect(trpcError(tool).message).toMatch(/decoded form/);

    const launch = await saveDefaultsTrpc({ externalTools: [{ label: 'Calculator', url: 'https://calc.example.com/?lang=en' }] });
    expect(trpcError(launch).data).toMatchObject({ errorCode: 'INVALID_EXB_TOOL_POLICY', path: ['externalTools', 0, 'url'] });
  });

  it('gives the typed client each refusal’s message key and values, so the editor says it in the page’s language', async () => {
    const data = (response: { json(): unknown }) => trpcError(response).data as Record<string, unknown>;
    // A rule broken inside the input schema.
    const rule = await saveDefaultsTrpc({ urlRules: [{ match: 'exact', value: 'http://insecure.example.com/page' }] });
    expect(trpcError(rule).message).toBe('Only exact https:// URLs are allowed');
    expect(data(rule)).toMatchObject({ errorCode: 'INVALID_EXB_URL_POLICY', messageKey: 'url.httpsOnly', path: ['urlRules', 0, 'value'] });
    // A rule a domain service checks, the reason nested in the message.
    const tool = await saveDefaultsTrpc({ externalTools: [{ label: 'Calculator', url: 'http://calc.example.com/app' }] });
    expect(trpcError(tool).message).toBe('Launch address: Only exact https:// URLs are allowed');
    expect(data(tool)).toMatchObject({ messageKey: 'tool.launchAddress', values: { reason: { messageKey: 'url.httpsOnly' } }, path: ['externalTools', 0, 'url'] });
    // A schema of the rules that words its own refusal; the field is named in the issue list, as for any input check.
    const password = await saveDefaultsTrpc({ quitPassword: 'sortie-élève' });
    expect(data(password)).toMatchObject({ messageKey: 'password.printableAscii' });
    expect(JSON.parse(trpcError(password).message)[0]).toMatchObject({ path: ['quitPassword'], message: 'Use printable ASCII characters only' });
    // The contract's REST answer carries no key: its body stays as the contract has it.
    const rest = await saveDefaults({ urlRules: [{ match: 'exact', value: 'http://insecure.example.com/page' }] });
    expect(rest.json()).toEqual({ success: false, error_code: 'INVALID_EXB_URL_POLICY', message: 'Only exact https:// URLs are allowed' });
  });

  it('still loads a stored policy of the refused kinds, and keeps it when other fields are saved', async () => {
    const storedRules = [
      { match: 'exact' as const, value: WHOLE_HOST },
      { match: 'exact' as const, value: PLUS },
    ];
    const storedTool = {
      id: 'calc',
      label: 'Calculator',
      url: 'https://calc.example.com/',
      resourceRules: [{ match: 'exact' as const, value: ENCODED }],
      managedByAdmin: false,
      enabled: true,
    };
    await t.settings.saveCourseDefaults(COURSE, {
      courseId: COURSE,
      urlRules: storedRules,
      externalTools: [storedTool],
      startPassword: null,
      exitPassword: null,
      setupCompleted: false,
    });

    const loaded = await t.request('GET', DEFAULTS);
    expect(loaded.statusCode).toBe(200);
    expect(loaded.json().defaults).toMatchObject({ urlRules: storedRules, externalTools: [storedTool] });

    const other = await saveDefaults({ setupCompleted: true, quitPassword: 'course-exit-1' });
    expect(other.statusCode).toBe(200);
    expect(await t.settings.loadCourseDefaults(COURSE)).toMatchObject({ urlRules: storedRules, externalTools: [storedTool], setupCompleted: true });

    // Saving the rules again is a save: the editor asks for the working form.
    const resaved = await saveDefaults({ urlRules: storedRules });
    expect(resaved.json()).toMatchObject({ success: false, error_code: 'INVALID_EXB_URL_POLICY' });
  });
});
