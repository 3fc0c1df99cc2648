import { describe, expect, it } from 'vitest';
import { defaultAssessmentSettings, emptyCourseDefaults } from '../../../src/domain/settings/model.js';
import {
  SETTINGS_SECRETS_KEY_ID,
  SettingsCodec,
  SettingsUnreadableError,
  type AssessmentSettingRow,
  type CourseDefaultsRow,
  type EncodedAssessmentSetting,
} from '../../../src/domain/settings/settings-codec.js';
import { storedAssessmentRow } from '../../support/settings-rows.js';

const codec = SettingsCodec.fromAppSecret(Buffer.from('a test application secret of enough length', 'utf8'));

const setting = {
  ...defaultAssessmentSettings('7', 'classicquiz_3'),
  exbRequired: true,
  enabled: true,
  accessCode: 'code-1',
  exitPasswordOverride: 'exit-1',
  urlRules: [{ id: 'r1', match: 'exact' as const, value: 'https://docs.example.edu/a', label: 'Docs' }],
  version: 4,
};

/** The row a statement selecting the codec's columns reads back for an encoded setting. */
function storedRow(encoded: EncodedAssessmentSetting, overrides: Partial<AssessmentSettingRow> = {}): AssessmentSettingRow {
  return storedAssessmentRow(setting, encoded, overrides);
}

describe('settings codec', () => {
  it('decodes what it encoded, secrets sealed under the current key id', () => {
    const encoded = codec.encodeAssessment(setting);
    expect(encoded.accessCode.keyId).toBe(SETTINGS_SECRETS_KEY_ID);
    expect(encoded.accessCode.sealed?.toString('latin1')).not.toContain('code-1');
    expect(codec.assessment(storedRow(encoded))).toEqual({ ...setting, updatedAt: new Date('2030-01-02T03:04:05.000Z') });
  });

  it('refuses a secret moved to another column or sealed under an unknown key', () => {
    const encoded = codec.encodeAssessment(setting);
    const moved = storedRow(encoded, { s_exit_password_sealed: encoded.accessCode.sealed });
    expect(() => codec.assessment(moved)).toThrow(SettingsUnreadableError);
    expect(() => codec.assessment(storedRow(encoded, { s_access_code_key_id: 'another-key' }))).toThrow(SettingsUnreadableError);
  });

  it('refuses a stored policy that does not match its schema', () => {
    const encoded = codec.encodeAssessment(setting);
    expect(() => codec.assessment(storedRow(encoded, { s_url_rules: [{ match: 'nonsense' }] }))).toThrow(SettingsUnreadableError);
    expect(() => codec.assessment(storedRow(encoded, { s_verification_status: 'maybe' }))).toThrow(SettingsUnreadableError);
  });

  it('reads absent rows of a left join as no setting and no defaults', () => {
    const absent = Object.fromEntries(Object.keys(storedRow(codec.encodeAssessment(setting))).map((key) => [key, null]));
    expect(codec.assessment(absent as unknown as AssessmentSettingRow)).toBeNull();
    expect(codec.courseDefaults({ d_course_id: null } as CourseDefaultsRow)).toBeNull();
  });

  it('binds course defaults secrets to their course', () => {
    const defaults = { ...emptyCourseDefaults('7'), exitPassword: 'course-exit' };
    const encoded = codec.encodeCourseDefaults(defaults);
    const row: CourseDefaultsRow = {
      d_course_id: '7',
      d_url_rules: encoded.urlRules,
      d_external_tools: encoded.externalTools,
      d_start_password_sealed: null,
      d_start_password_key_id: null,
      d_exit_password_sealed: encoded.exitPassword.sealed,
      d_exit_password_key_id: encoded.exitPassword.keyId,
      d_setup_completed: false,
      d_reset_generation: 2,
      d_updated_at: null,
    };
    expect(codec.courseDefaults(row)).toEqual({ ...defaults, resetGeneration: 2 });
    expect(() => codec.courseDefaults({ ...row, d_course_id: '8' })).toThrow(SettingsUnreadableError);
  });

  it('refuses to store an empty secret or a malformed policy', () => {
    expect(() => codec.encodeAssessment({ ...setting, accessCode: '' })).toThrow(RangeError);
    expect(() => codec.encodeAssessment({ ...setting, urlRules: [{ match: 'nonsense' }] as never })).toThrow();
  });
});
