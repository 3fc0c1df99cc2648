import { z } from 'zod';
import { EXB_POLICY_LIMITS, exbUrlRuleSchema, externalToolConfigSchema } from '@exb/shared/exb-policy.js';
import { open } from '../../security/aead.js';
import { deriveKey } from '../../security/derived-keys.js';
import { resolveEffectiveSettings, type EffectiveSettings } from '../settings/effective-settings.js';
import { settingsFingerprint } from '../settings/fingerprint.js';
import type { AssessmentSettings, CourseDefaults } from '../settings/model.js';
import { SETTINGS_SECRETS_KEY_ID } from '../settings/settings-repository.js';
import type { QuitTokens } from './quit-token.js';

/**
 * The settings of one assessment as the student routes see them, read in a single statement: the setting and its
 * course defaults are joined on their primary keys, so every hot path costs one indexed lookup. Route statements that
 * also consume a token select {@link POLICY_COLUMNS} beside it and hand the row to {@link PolicyReader.fromRow}.
 *
 * Secrets are opened here with the settings repository's key and associated data, so a ciphertext that does not belong
 * to its row fails the same way it does there; such a setting is "unverifiable" and never enforced or released.
 */

/** Selected with aliases `s` (assessment_setting) and `d` (course_defaults, left-joined on `s.course_id`). */
export const POLICY_COLUMNS = `
  s.course_id as s_course_id, s.content_id as s_content_id, s.exb_required as s_exb_required, s.enabled as s_enabled,
  s.access_code_sealed as s_access_code_sealed, s.access_code_key_id as s_access_code_key_id,
  s.uses_course_defaults as s_uses_course_defaults, s.url_rules as s_url_rules, s.external_tool_ids as s_external_tool_ids,
  s.quiz_only_tools as s_quiz_only_tools, s.start_password_sealed as s_start_password_sealed,
  s.start_password_key_id as s_start_password_key_id, s.exit_password_sealed as s_exit_password_sealed,
  s.exit_password_key_id as s_exit_password_key_id, s.version as s_version,
  d.course_id as d_course_id, d.url_rules as d_url_rules, d.external_tools as d_external_tools,
  d.start_password_sealed as d_start_password_sealed, d.start_password_key_id as d_start_password_key_id,
  d.exit_password_sealed as d_exit_password_sealed, d.exit_password_key_id as d_exit_password_key_id`;

export interface PolicyRow {
  s_course_id: string | null;
  s_content_id: string | null;
  s_exb_required: boolean | null;
  s_enabled: boolean | null;
  s_access_code_sealed: Buffer | null;
  s_access_code_key_id: string | null;
  s_uses_course_defaults: boolean | null;
  s_url_rules: unknown;
  s_external_tool_ids: unknown;
  s_quiz_only_tools: unknown;
  s_start_password_sealed: Buffer | null;
  s_start_password_key_id: string | null;
  s_exit_password_sealed: Buffer | null;
  s_exit_password_key_id: string | null;
  s_version: number | null;
  d_course_id: string | null;
  d_url_rules: unknown;
  d_external_tools: unknown;
  d_start_password_sealed: Buffer | null;
  d_start_password_key_id: string | null;
  d_exit_password_sealed: Buffer | null;
  d_exit_password_key_id: string | null;
}

/** A stored setting that cannot be read: a secret that does not open, or a policy that does not match its schema. */
export class PolicyUnreadableError extends Error {
  override name = 'PolicyUnreadableError';
}

/** One assessment's setting, resolved for the student flow. */
export interface StudentPolicy {
  readonly courseId: string;
  readonly contentId: string;
  readonly exbRequired: boolean;
  readonly enabled: boolean;
  readonly accessCode: string | null;
  readonly effective: EffectiveSettings;
  /** The configuration-bound quit URL for the current access code; `null` without one. */
  readonly quitUrl: string | null;
  readonly fingerprint: string;
  /**
   * Enforcement is fully active: enabled and required, an access code to release and an effective exit password. Only
   * then is the exam browser required, a configuration served, a proof accepted and a code released.
   */
  readonly active: boolean;
}

export interface PolicyContext {
  readonly baseUrl: string;
  readonly lmsUrl: string;
  readonly managedExitPassword: string | null | undefined;
  /** Hosts every configuration allows besides the LMS and the service (sign-in providers). */
  readonly additionalAllowedHosts: readonly string[];
  readonly quitTokens: QuitTokens;
}

const urlRulesSchema = z.array(exbUrlRuleSchema).max(EXB_POLICY_LIMITS.urlRules);
const catalogSchema = z.array(externalToolConfigSchema).max(EXB_POLICY_LIMITS.catalogTools);
const quizOnlyToolsSchema = z.array(externalToolConfigSchema).max(EXB_POLICY_LIMITS.quizOnlyTools);
const toolIdsSchema = z.array(z.string().min(1).max(EXB_POLICY_LIMITS.idLength)).max(EXB_POLICY_LIMITS.catalogTools);

export class PolicyReader {
  private readonly key: Buffer;

  constructor(
    appSecret: Buffer,
    private readonly context: PolicyContext,
  ) {
    this.key = deriveKey(appSecret, 'settings-secrets');
  }

  /**
   * The policy in a row selected with {@link POLICY_COLUMNS}; `null` when the assessment has no setting. Throws
   * {@link PolicyUnreadableError} for a setting that cannot be read.
   */
  fromRow(row: PolicyRow): StudentPolicy | null {
    if (row.s_course_id === null || row.s_content_id === null) return null;
    const assessment = this.assessmentOf(row);
    const courseDefaults = this.courseDefaultsOf(row);
    const effective = resolveEffectiveSettings({
      assessment,
      courseDefaults,
      managedExitPassword: this.context.managedExitPassword,
    });
    const { courseId, contentId, accessCode } = assessment;
    const quitUrl =
      accessCode === null ? null : this.context.quitTokens.quitUrl(this.context.baseUrl, courseId, contentId, accessCode);
    const fingerprint = settingsFingerprint(effective, {
      lmsOrigin: this.context.lmsUrl,
      serviceOrigin: this.context.baseUrl,
      quitUrl,
      additionalAllowedHosts: this.context.additionalAllowedHosts,
    });
    return {
      courseId,
      contentId,
      exbRequired: assessment.exbRequired,
      enabled: assessment.enabled,
      accessCode,
      effective,
      quitUrl,
      fingerprint,
      active: assessment.enabled && assessment.exbRequired && accessCode !== null && effective.exitPassword.value !== null,
    };
  }

  private assessmentOf(row: PolicyRow): AssessmentSettings {
    const courseId = row.s_course_id as string;
    const contentId = row.s_content_id as string;
    const secret = (column: string, sealed: Buffer | null, keyId: string | null) =>
      this.openSecret(`assessment_setting:${courseId}:${contentId}:${column}`, sealed, keyId);
    return {
      courseId,
      contentId,
      exbRequired: row.s_exb_required === true,
      enabled: row.s_enabled === true,
      accessCode: secret('access_code', row.s_access_code_sealed, row.s_access_code_key_id),
      usesCourseDefaults: row.s_uses_course_defaults !== false,
      urlRules: stored(urlRulesSchema, row.s_url_rules, 'url_rules'),
      externalToolIds: row.s_external_tool_ids === null ? null : stored(toolIdsSchema, row.s_external_tool_ids, 'external_tool_ids'),
      quizOnlyTools: stored(quizOnlyToolsSchema, row.s_quiz_only_tools, 'quiz_only_tools'),
      startPasswordOverride: secret('start_password', row.s_start_password_sealed, row.s_start_password_key_id),
      exitPasswordOverride: secret('exit_password', row.s_exit_password_sealed, row.s_exit_password_key_id),
      verificationStatus: 'unverified',
      updatedAt: null,
      version: row.s_version ?? 0,
    };
  }

  private courseDefaultsOf(row: PolicyRow): CourseDefaults | null {
    const courseId = row.d_course_id;
    if (courseId === null) return null;
    const secret = (column: string, sealed: Buffer | null, keyId: string | null) =>
      this.openSecret(`course_defaults:${courseId}:${column}`, sealed, keyId);
    return {
      courseId,
      urlRules: stored(urlRulesSchema, row.d_url_rules, 'url_rules'),
      externalTools: stored(catalogSchema, row.d_external_tools, 'external_tools'),
      startPassword: secret('start_password', row.d_start_password_sealed, row.d_start_password_key_id),
      exitPassword: secret('exit_password', row.d_exit_password_sealed, row.d_exit_password_key_id),
      setupCompleted: false,
      resetGeneration: 0,
      updatedAt: null,
    };
  }

  private openSecret(associatedData: string, sealed: Buffer | null, keyId: string | null): string | null {
    if (sealed === null) return null;
    if (keyId !== SETTINGS_SECRETS_KEY_ID) throw new PolicyUnreadableError('a secret was sealed with an unknown key');
    const plaintext = open(this.key, sealed, associatedData);
    if (plaintext === null) throw new PolicyUnreadableError('a secret does not open for its row');
    return plaintext.toString('utf8');
  }
}

function stored<T>(schema: z.ZodType<T>, value: unknown, column: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new PolicyUnreadableError(`stored ${column} does not match its schema`);
  return parsed.data;
}
