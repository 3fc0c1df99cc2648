import type { Pool } from 'pg';
import { describe, expect, it, vi } from 'vitest';
import { PolicyReader, type ExamPolicy } from '../../../src/domain/exam-browser/exam-policy.js';
import { QuitTokens } from '../../../src/domain/exam-browser/quit-token.js';
import { defaultAssessmentSettings } from '../../../src/domain/settings/model.js';
import { SettingsCodec, type SettingsRow } from '../../../src/domain/settings/settings-codec.js';
import { storedAssessmentRow } from '../../support/settings-rows.js';

/** Student paths decode a settings row once per distinct row: the same row is not opened twice, a changed one always is. */

/** The text PostgreSQL writes for a row (`settings/settings-text.ts`): bytea as its hex output, the rest as JSON. */
function asText(settings: SettingsRow): string {
  return JSON.stringify(
    Object.fromEntries(Object.entries(settings).map(([key, value]) => [key, Buffer.isBuffer(value) ? `\\x${value.toString('hex')}` : value])),
  );
}

const secret = Buffer.from('a test application secret of enough length', 'utf8');
const codec = SettingsCodec.fromAppSecret(secret);

function row(accessCode: string, overrides: Partial<SettingsRow> = {}): SettingsRow {
  const setting = {
    ...defaultAssessmentSettings('7', 'classicquiz_3'),
    exbRequired: true,
    enabled: true,
    accessCode,
    exitPasswordOverride: 'exit-1',
    version: 1,
  };
  const encoded = codec.encodeAssessment(setting);
  return {
    ...storedAssessmentRow(setting, encoded, { s_updated_at: new Date('2030-01-02T03:04:05.000Z') }),
    d_course_id: null,
    d_url_rules: null,
    d_external_tools: null,
    d_start_password_sealed: null,
    d_start_password_key_id: null,
    d_exit_password_sealed: null,
    d_exit_password_key_id: null,
    d_setup_completed: null,
    d_reset_generation: null,
    d_updated_at: null,
    ...overrides,
  };
}

function reader() {
  const logger = { warn: vi.fn() };
  const decode = vi.spyOn(codec, 'assessment');
  decode.mockClear();
  const policies = new PolicyReader({} as Pool, codec, {
    baseUrl: 'https://exb.example.edu',
    lmsUrl: 'https://lms.example.edu',
    managedExitPassword: null,
    additionalAllowedHosts: [],
    quitTokens: QuitTokens.fromAppSecret(secret),
  }, logger);
  return { policies, decode, logger };
}

describe('the policy reader', () => {
  it('decodes a row once, and again only when any column of it differs', () => {
    const { policies, decode } = reader();
    const first = row('code-1');
    const policy = policies.read(asText(first)) as ExamPolicy;
    expect(policy.accessCode).toBe('code-1');
    // The same row read again (as a grant or a download reads it beside its token) is the same row.
    expect(policies.read(asText(first))).toBe(policy);
    expect(decode).toHaveBeenCalledTimes(1);

    const regenerated = policies.read(asText(row('code-2'))) as ExamPolicy;
    expect(regenerated.accessCode).toBe('code-2');
    expect(regenerated.fingerprint).not.toBe(policy.fingerprint);
    const disabled = policies.read(asText({ ...first, s_enabled: false })) as ExamPolicy;
    expect(disabled.active).toBe(false);
    expect(decode).toHaveBeenCalledTimes(3);
  });

  it('never keeps an unreadable row: each read reports it again', () => {
    const { policies, logger } = reader();
    const broken = { ...row('code-1'), s_access_code_sealed: Buffer.from('not a ciphertext') };
    expect(policies.read(asText(broken))).toBe('unreadable');
    expect(policies.read(asText(broken))).toBe('unreadable');
    expect(logger.warn).toHaveBeenCalledTimes(2);
  });
});
