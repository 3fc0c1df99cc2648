import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { presetToolId } from '@exb/shared/admin-tool-presets.js';
import { APPLICATION_SCOPES } from '@exb/shared/oauth-scopes.js';
import { downloadConfiguration, openConfiguration } from '../../../e2e/src/exb-simulator/index.js';
import type { PlistDict } from '../../src/exb/plist.js';
import { resolveEffectiveSettings } from '../../src/domain/settings/effective-settings.js';
import { settingsFingerprint } from '../../src/domain/settings/fingerprint.js';
import { defaultAssessmentSettings } from '../../src/domain/settings/model.js';
import { ActionTokens } from '../../src/security/action-token.js';
import { developmentIdentity } from '../exb-public/helpers.js';
import { storeGrant } from '../support/oauth-testbed.js';
import { instructor, sessionFor, student } from '../support/sessions.js';
import { createAdminBed, type AdminBed } from './harness.js';
import { CALCULATOR, PRESETS, presetHelpers } from './preset-helpers.js';

/**
 * What a rollout means inside a course: the instructor sees the school-managed tool and may only switch it, and the
 * students' configurations carry it from the next download on.
 */
let t: AdminBed;
const p = presetHelpers(() => t);
const QUIZ = 'classicquiz_201';

beforeAll(async () => {
  t = await createAdminBed();
});
afterAll(() => t.close());
beforeEach(async () => {
  await t.reset();
  await t.grant();
  await t.connect('101', '102');
});

function teacher(method: 'GET' | 'PUT', url: string, body?: unknown) {
  return t.app.inject({
    method,
    url,
    headers: { cookie: sessionFor(t.app, instructor()).cookie, ...(method === 'GET' ? {} : { 'sec-fetch-site': 'same-origin' }) },
    ...(body !== undefined ? { payload: body as Record<string, unknown> } : {}),
  });
}

async function rollOut(): Promise<string> {
  const preset = await p.create();
  const response = await p.call('PUT', `${PRESETS}/${preset.id}/courses/101`, { assigned: true });
  expect(response.statusCode, response.body).toBe(200);
  return preset.id;
}

describe('the instructor of a course the preset was rolled out to', () => {
  it('sees the school-managed tool, may switch it off, but cannot change or copy it', async () => {
    await storeGrant(t.bed, 2, APPLICATION_SCOPES);
    const presetId = await rollOut();
    const toolId = presetToolId(presetId);
    const defaults = await teacher('GET', '/api/quizzes/course/101/defaults');
    expect(defaults.statusCode, defaults.body).toBe(200);
    const [tool] = (defaults.json() as { defaults: { externalTools: Record<string, unknown>[] } }).defaults.externalTools;
    expect(tool).toMatchObject({ id: toolId, managedByAdmin: true, presetId, url: 'https://calc.example.edu/app', enabled: true });

    for (const change of [{ url: 'https://evil.example.com/app' }, { resourceRules: [] }, { label: 'Renamed' }, { managedByAdmin: false }]) {
      const refused = await teacher('PUT', '/api/quizzes/course/101/defaults', { externalTools: [{ ...tool, ...change }] });
      expect(refused.statusCode, refused.body).toBe(400);
      expect(refused.json()).toMatchObject({ error_code: 'INVALID_EXB_TOOL_POLICY' });
    }
    // Leaving it out of a save does not remove it either.
    expect((await teacher('PUT', '/api/quizzes/course/101/defaults', { externalTools: [] })).statusCode).toBe(200);
    expect((await p.catalog('101')).map((entry) => entry.id)).toEqual([toolId]);

    const switched = await teacher('PUT', '/api/quizzes/course/101/defaults', { externalTools: [{ ...tool, enabled: false }] });
    expect(switched.statusCode, switched.body).toBe(200);
    const copy = await teacher('GET', `/api/quizzes/course/101/exam-tools/${toolId}/copy-targets`);
    expect(copy.statusCode).toBe(409);

    // A later change of the preset reaches the course, and the instructor's switch stays as they set it.
    await p.call('PUT', `${PRESETS}/${presetId}`, { name: 'Calculator', tool: { ...CALCULATOR, url: 'https://calc.example.edu/v2' } });
    await p.reconcile(presetId);
    expect(await p.catalog('101')).toEqual([expect.objectContaining({ id: toolId, url: 'https://calc.example.edu/v2', enabled: false })]);
  });
});

describe('students of an enforced assessment', () => {
  async function enforce(contentId: string, externalToolIds: string[] | null) {
    await t.settings.saveAssessmentSettings('101', {
      ...defaultAssessmentSettings('101', contentId),
      exbRequired: true,
      enabled: true,
      accessCode: 'exam-code-7431',
      exitPasswordOverride: 'leave-now',
      externalToolIds,
    });
  }

  async function fingerprintOf(contentId: string): Promise<string> {
    const { assessment, courseDefaults } = await t.settings.loadPolicyInputs('101', contentId);
    const effective = resolveEffectiveSettings({ assessment: assessment!, courseDefaults });
    return settingsFingerprint(effective, { lmsOrigin: t.bed.t.config.lmsUrl, serviceOrigin: t.bed.t.config.baseUrl, quitUrl: null });
  }

  it('get a new settings fingerprint for every affected assessment, and only those', async () => {
    await t.settings.saveCourseDefaults('101', { courseId: '101', urlRules: [], externalTools: [], startPassword: null, exitPassword: null, setupCompleted: true });
    await enforce(QUIZ, null);
    await enforce('classicquiz_202', []);
    const before = [await fingerprintOf(QUIZ), await fingerprintOf('classicquiz_202')];
    const presetId = await rollOut();
    // The assessment inheriting the catalog changes; the one that selected no course tool does not.
    expect(await fingerprintOf(QUIZ)).not.toBe(before[0]);
    expect(await fingerprintOf('classicquiz_202')).toBe(before[1]);
    expect((await p.call('PUT', `${PRESETS}/${presetId}/courses/101`, { assigned: false })).statusCode).toBe(200);
    expect(await fingerprintOf(QUIZ)).toBe(before[0]);
  });

  it('download a configuration that carries the rolled-out tool', async () => {
    await enforce(QUIZ, null);
    await storeGrant(t.bed, 3, APPLICATION_SCOPES);
    const open = async () => {
      const { session, cookie } = sessionFor(t.app, student());
      const actionToken = ActionTokens.fromAppSecret(t.bed.t.config.secrets.appSecret).issue(session, 'config-grant');
      const grant = await t.app.inject({
        method: 'POST',
        url: `/api/exb/config-grant/101/${QUIZ}`,
        headers: { cookie, 'sec-fetch-site': 'same-origin' },
        payload: { actionToken },
      });
      expect(grant.statusCode, grant.body).toBe(200);
      const fetchThroughApp = (async (input: string | URL | Request, init?: RequestInit) => {
        const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
        const method = (init?.method ?? 'GET') as 'GET' | 'HEAD';
        const response = await t.app.inject({ method, url: `${url.pathname}${url.search}`, headers: init?.headers as Record<string, string> });
        return new Response(method === 'HEAD' ? null : response.rawPayload, { status: response.statusCode, headers: { 'content-type': String(response.headers['content-type'] ?? '') } });
      }) as typeof fetch;
      const downloaded = await downloadConfiguration((grant.json() as { exbLaunchUrl: string }).exbLaunchUrl, { fetch: fetchThroughApp });
      const opened = openConfiguration(downloaded.bytes, developmentIdentity(t.bed.t.dataDir));
      return (opened.settings.get('URLFilterRules') as PlistDict[]).map((rule) => rule.get('expression') as string);
    };
    const without = await open();
    expect(without.some((expression) => expression.includes('calc.example.edu'))).toBe(false);
    await rollOut();
    const withTool = await open();
    expect(withTool.some((expression) => expression.includes('.calc.example.edu:443/app'))).toBe(true);
    expect(withTool.some((expression) => expression.includes('cdn.calc.example.edu'))).toBe(true);
  });
});
