import type { AssessmentSettingsDraft, AssessmentSettingRow, EncodedAssessmentSetting } from '../../src/domain/settings/settings-codec.js';

/** The assessment-setting columns a statement selecting the codec's columns reads back for an encoded setting. */
export function storedAssessmentRow(
  setting: AssessmentSettingsDraft,
  encoded: EncodedAssessmentSetting,
  overrides: Partial<AssessmentSettingRow> = {},
): AssessmentSettingRow {
  return {
    s_course_id: setting.courseId,
    s_content_id: setting.contentId,
    s_exb_required: setting.exbRequired,
    s_enabled: setting.enabled,
    s_access_code_sealed: encoded.accessCode.sealed,
    s_access_code_key_id: encoded.accessCode.keyId,
    s_uses_course_defaults: setting.usesCourseDefaults,
    s_url_rules: encoded.urlRules,
    s_external_tool_ids: encoded.externalToolIds,
    s_quiz_only_tools: encoded.quizOnlyTools,
    s_start_password_sealed: encoded.startPassword.sealed,
    s_start_password_key_id: encoded.startPassword.keyId,
    s_exit_password_sealed: encoded.exitPassword.sealed,
    s_exit_password_key_id: encoded.exitPassword.keyId,
    s_verification_status: encoded.verificationStatus,
    s_updated_at: '2030-01-02T03:04:05.000Z',
    s_version: setting.version,
    ...overrides,
  };
}
