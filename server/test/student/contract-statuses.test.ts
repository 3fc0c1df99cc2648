import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSettingsRepository } from '../../src/domain/settings/settings-repository.js';
import { defaultAssessmentSettings } from '../../src/domain/settings/model.js';
import { BindingRepository } from '../../src/identity/binding-repository.js';
import { ActionTokens } from '../../src/security/action-token.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { sessionFor } from '../support/sessions.js';
import { bootstrapOf, customCertificate } from '../exb-public/helpers.js';
import { ACCESS_CODE, COURSE, EXIT_PASSWORD, LMS, QUIZ, SAME_ORIGIN, SERVICE, student } from './harness.js';

// Refusals Document 3 names get the status it names: an unusable encryption certificate leaves the configuration
// unavailable (config-grant 404, no error code), and every new quiz content id on the required-browser view is 403.

const DAY = 86_400_000;

describe('Document 3 statuses of the config grant and the required-browser view', () => {
  let t: TestApp;
  const dir = mkdtempSync(path.join(tmpdir(), 'exb-contract-statuses-'));

  beforeAll(async () => {
    const expired = customCertificate({ modulusLength: 2048, notBefore: new Date(Date.now() - 20 * DAY), notAfter: new Date(Date.now() - DAY) });
    const certificatePath = path.join(dir, 'expired.pem');
    writeFileSync(certificatePath, expired);
    t = await createTestApp({ env: { BASE_URL: SERVICE, LMS_URL: LMS, EXB_CONFIG_CERTIFICATE: certificatePath } });
    // The course is proven for its signed context, as after its instructor's first authorization.
    const principal = student();
    await new BindingRepository(t.db.orm).recordContext(
      { issuer: principal.issuer, kind: 'course', ltiContextId: principal.ltiContextId, lmsId: COURSE },
      { lmsUserId: '2', role: 'instructor' },
    );
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers the config grant with 404 and no error code while the certificate cannot encrypt', async () => {
    const settings = createSettingsRepository(t.db, t.config.secrets.appSecret);
    await settings.saveAssessmentSettings(COURSE, {
      ...defaultAssessmentSettings(COURSE, QUIZ),
      exbRequired: true,
      enabled: true,
      accessCode: ACCESS_CODE,
      exitPasswordOverride: EXIT_PASSWORD,
    });
    const { session, cookie } = sessionFor(t.app, student());
    const response = await t.app.inject({
      method: 'POST',
      url: `/api/exb/config-grant/${COURSE}/${QUIZ}`,
      headers: { cookie, ...SAME_ORIGIN },
      payload: { actionToken: ActionTokens.fromAppSecret(t.config.secrets.appSecret).issue(session, 'config-grant') },
    });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ success: false, message: expect.stringMatching(/cannot be provided right now/) });
  });

  it('refuses every new quiz content id with 403, also one of another course', async () => {
    const view = (quizId: string) =>
      t.app.inject({ method: 'GET', url: `/exb/quiz/${COURSE}/${quizId}`, headers: { cookie: sessionFor(t.app, student()).cookie } });
    for (const quizId of ['newquiz:101:301', 'newquiz:102:301']) {
      const response = await view(quizId);
      expect(response.statusCode).toBe(403);
      expect(bootstrapOf(response.body)).toMatchObject({ view: 'notice', details: [{ label: 'Error code', value: 'EXB_CLASSIC_QUIZ_ONLY' }] });
    }
    expect((await view('newquiz:101:x')).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: '/exb/quiz/abc/newquiz:101:301' })).statusCode).toBe(404);
  });
});
