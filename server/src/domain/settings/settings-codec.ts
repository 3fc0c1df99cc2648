import { z } from 'zod';
import { EXB_POLICY_LIMITS, exbUrlRuleSchema, externalToolConfigSchema } from '@exb/shared/exb-policy.js';
import { open, seal } from '../../security/aead.js';
import { deriveKey } from '../../security/derived-keys.js';
import { verificationStatusSchema } from '@exb/shared/verification-status.js';
import type { AssessmentSettings, CourseDefaults } from './model.js';

/**
 * The one codec of the stored settings rows (`assessment_setting`, `course_defaults`): the columns every statement
 * selects them with, and the only code that seals secrets on the way in and opens them on the way out. Instructors'
 * and students' paths decode through it alike, so they can never disagree about whether a setting is enforced.
 *
 * Secrets (access code, start and exit passwords) are sealed with AES-256-GCM under a key derived from APP_SECRET.
 * The associated data is `table:courseId:contentId:column` (course defaults: `table:courseId:column`): a ciphertext
 * moved to another row, course or column fails to open instead of yielding another assessment's secret.
 *
 * Stored policies are already normalized by `@exb/shared/exb-policy.js`; they are re-checked for shape on the way in
 * and out so a bug elsewhere cannot persist, or act on, a malformed policy.
 */

/** Id of the key that sealed a stored secret, so a later key change can tell old ciphertexts apart. */
export const SETTINGS_SECRETS_KEY_ID = 'app-secret/settings-secrets/1';

/** A stored setting that cannot be read: a secret that does not open, or a policy that does not match its schema. */
export class SettingsUnreadableError extends Error {
  override name = 'SettingsUnreadableError';
}

/** The columns of an assessment setting the codec reads, selected from the alias `s` as `s_<column>`. */
export const ASSESSMENT_SETTING_FIELDS = [
  'course_id', 'content_id', 'exb_required', 'enabled', 'access_code_sealed', 'access_code_key_id', 'uses_course_defaults',
  'url_rules', 'external_tool_ids', 'quiz_only_tools', 'start_password_sealed', 'start_password_key_id',
  'exit_password_sealed', 'exit_password_key_id', 'verification_status', 'updated_at', 'version',
] as const;

/** The columns of a course's defaults the codec reads, selected from the alias `d` as `d_<column>`. */
export const COURSE_DEFAULTS_FIELDS = [
  'course_id', 'url_rules', 'external_tools', 'start_password_sealed', 'start_password_key_id', 'exit_password_sealed',
  'exit_password_key_id', 'setup_completed', 'reset_generation', 'updated_at',
] as const;

export const ASSESSMENT_SETTING_COLUMNS = ASSESSMENT_SETTING_FIELDS.map((field) => `s.${field} as s_${field}`).join(', ');
export const COURSE_DEFAULTS_COLUMNS = COURSE_DEFAULTS_FIELDS.map((field) => `d.${field} as d_${field}`).join(', ');
export const SETTINGS_COLUMNS = `${ASSESSMENT_SETTING_COLUMNS},${COURSE_DEFAULTS_COLUMNS}`;

/**
 * Joins one assessment's setting (`s`) and its course's defaults (`d`) onto a statement's row, each by primary key;
 * `course` and `content` are the statement's placeholders, or the columns of the row they join onto. Select
 * {@link SETTINGS_COLUMNS} beside it.
 */
export function settingsJoin(course: string, content: string): string {
  return `
  left join assessment_setting s on s.course_id = ${course} and s.content_id = ${content}
  left join course_defaults d on d.course_id = ${course}`;
}

/** The settings of `s` can require the exam browser (the full rule is `ExamPolicy.active`, applied after decoding). */
export const SETTING_MAY_REQUIRE_EXAM_BROWSER = 's.enabled and s.exb_required';

/** The settings of `s` can release an access code: they may require the exam browser and hold a code. */
export const SETTING_MAY_RELEASE_CODE = `${SETTING_MAY_REQUIRE_EXAM_BROWSER} and s.access_code_sealed is not null`;

/** Columns are `null` where the row is absent (a left join). */
export interface AssessmentSettingRow {
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
  s_verification_status: string | null;
  s_updated_at: Date | string | null;
  s_version: number | null;
}

export interface CourseDefaultsRow {
  d_course_id: string | null;
  d_url_rules: unknown;
  d_external_tools: unknown;
  d_start_password_sealed: Buffer | null;
  d_start_password_key_id: string | null;
  d_exit_password_sealed: Buffer | null;
  d_exit_password_key_id: string | null;
  d_setup_completed: boolean | null;
  d_reset_generation: number | null;
  d_updated_at: Date | string | null;
}

/** Both rows of one assessment, as {@link settingsJoin} reads them. */
export type SettingsRow = AssessmentSettingRow & CourseDefaultsRow;

const SETTINGS_ROW_KEYS = [
  ...ASSESSMENT_SETTING_FIELDS.map((field) => `s_${field}` as const),
  ...COURSE_DEFAULTS_FIELDS.map((field) => `d_${field}` as const),
];

// The row types and the column lists name the same columns; a column added to one and not the other fails here.
type SelectedKey = (typeof SETTINGS_ROW_KEYS)[number];
const rowTypesMatchColumns: [SelectedKey, keyof SettingsRow] extends [keyof SettingsRow, SelectedKey] ? true : never = true;
void rowTypesMatchColumns;

const urlRulesSchema = z.array(exbUrlRuleSchema).max(EXB_POLICY_LIMITS.urlRules);
const catalogSchema = z.array(externalToolConfigSchema).max(EXB_POLICY_LIMITS.catalogTools);
const quizOnlyToolsSchema = z.array(externalToolConfigSchema).max(EXB_POLICY_LIMITS.quizOnlyTools);
const toolIdsSchema = z.array(z.string().min(1).max(EXB_POLICY_LIMITS.idLength)).max(EXB_POLICY_LIMITS.catalogTools);
const MAX_SECRET_LENGTH = 1024;

type AssessmentSecret = 'access_code' | 'start_password' | 'exit_password';
type CourseSecret = 'start_password' | 'exit_password';

/** A secret as stored: the ciphertext and the id of the key that sealed it, both `null` for no secret. */
export interface SealedSecret {
  readonly sealed: Buffer | null;
  readonly keyId: string | null;
}

export type AssessmentSettingsDraft = Omit<AssessmentSettings, 'updatedAt'>;
export type CourseDefaultsDraft = Omit<CourseDefaults, 'updatedAt' | 'resetGeneration'>;

/** What an assessment setting writes: its policy checked for shape, its secrets sealed for its row. */
export interface EncodedAssessmentSetting {
  readonly urlRules: AssessmentSettings['urlRules'];
  readonly externalToolIds: AssessmentSettings['externalToolIds'];
  readonly quizOnlyTools: AssessmentSettings['quizOnlyTools'];
  readonly verificationStatus: AssessmentSettings['verificationStatus'];
  readonly accessCode: SealedSecret;
  readonly startPassword: SealedSecret;
  readonly exitPassword: SealedSecret;
}

export interface EncodedCourseDefaults {
  readonly urlRules: CourseDefaults['urlRules'];
  readonly externalTools: CourseDefaults['externalTools'];
  readonly startPassword: SealedSecret;
  readonly exitPassword: SealedSecret;
}

export class SettingsCodec {
  constructor(private readonly key: Buffer) {}

  static fromAppSecret(appSecret: Buffer): SettingsCodec {
    return new SettingsCodec(deriveKey(appSecret, 'settings-secrets'));
  }

  /** Throws for a value that must never be stored (a malformed policy, an empty or oversized secret). */
  encodeAssessment(settings: AssessmentSettingsDraft): EncodedAssessmentSetting {
    const { courseId, contentId } = settings;
    const secret = (column: AssessmentSecret, value: string | null) =>
      this.sealSecret(`assessment_setting:${courseId}:${contentId}:${column}`, value);
    return {
      urlRules: urlRulesSchema.parse(settings.urlRules),
      externalToolIds: settings.externalToolIds === null ? null : toolIdsSchema.parse(settings.externalToolIds),
      quizOnlyTools: quizOnlyToolsSchema.parse(settings.quizOnlyTools),
      verificationStatus: verificationStatusSchema.parse(settings.verificationStatus),
      accessCode: secret('access_code', settings.accessCode),
      startPassword: secret('start_password', settings.startPasswordOverride),
      exitPassword: secret('exit_password', settings.exitPasswordOverride),
    };
  }

  encodeCourseDefaults(defaults: CourseDefaultsDraft): EncodedCourseDefaults {
    const secret = (column: CourseSecret, value: string | null) =>
      this.sealSecret(`course_defaults:${defaults.courseId}:${column}`, value);
    return {
      urlRules: urlRulesSchema.parse(defaults.urlRules),
      externalTools: catalogSchema.parse(defaults.externalTools),
      startPassword: secret('start_password', defaults.startPassword),
      exitPassword: secret('exit_password', defaults.exitPassword),
    };
  }

  /** The setting in a row, `null` when it has none; throws {@link SettingsUnreadableError} for one that cannot be read. */
  assessment(row: AssessmentSettingRow): AssessmentSettings | null {
    const { s_course_id: courseId, s_content_id: contentId } = row;
    if (courseId === null || contentId === null) return null;
    const secret = (column: AssessmentSecret, sealed: Buffer | null, keyId: string | null) =>
      this.openSecret(`assessment_setting:${courseId}:${contentId}:${column}`, sealed, keyId);
    return {
      courseId,
      contentId,
      exbRequired: row.s_exb_required === true,
      enabled: row.s_enabled === true,
      accessCode: secret('access_code', row.s_access_code_sealed, row.s_access_code_key_id),
      usesCourseDefaults: row.s_uses_course_defaults !== false,
      urlRules: stored(urlRulesSchema, row.s_url_rules, 'url_rules'),
      externalToolIds:
        row.s_external_tool_ids === null || row.s_external_tool_ids === undefined
          ? null
          : stored(toolIdsSchema, row.s_external_tool_ids, 'external_tool_ids'),
      quizOnlyTools: stored(quizOnlyToolsSchema, row.s_quiz_only_tools, 'quiz_only_tools'),
      startPasswordOverride: secret('start_password', row.s_start_password_sealed, row.s_start_password_key_id),
      exitPasswordOverride: secret('exit_password', row.s_exit_password_sealed, row.s_exit_password_key_id),
      verificationStatus: stored(verificationStatusSchema, row.s_verification_status, 'verification_status'),
      updatedAt: storedTime(row.s_updated_at),
      version: row.s_version ?? 0,
    };
  }

  /** The course defaults in a row, `null` when the course has none; throws {@link SettingsUnreadableError}. */
  courseDefaults(row: CourseDefaultsRow): CourseDefaults | null {
    const courseId = row.d_course_id;
    if (courseId === null) return null;
    const secret = (column: CourseSecret, sealed: Buffer | null, keyId: string | null) =>
      this.openSecret(`course_defaults:${courseId}:${column}`, sealed, keyId);
    return {
      courseId,
      urlRules: stored(urlRulesSchema, row.d_url_rules, 'url_rules'),
      externalTools: stored(catalogSchema, row.d_external_tools, 'external_tools'),
      startPassword: secret('start_password', row.d_start_password_sealed, row.d_start_password_key_id),
      exitPassword: secret('exit_password', row.d_exit_password_sealed, row.d_exit_password_key_id),
      setupCompleted: row.d_setup_completed === true,
      resetGeneration: row.d_reset_generation ?? 0,
      updatedAt: storedTime(row.d_updated_at),
    };
  }

  private sealSecret(associatedData: string, value: string | null): SealedSecret {
    if (value === null) return { sealed: null, keyId: null };
    if (typeof value !== 'string' || value.length === 0 || value.length > MAX_SECRET_LENGTH) {
      throw new RangeError('a stored secret must be a non-empty string of bounded length, or null');
    }
    return { sealed: seal(this.key, Buffer.from(value, 'utf8'), associatedData), keyId: SETTINGS_SECRETS_KEY_ID };
  }

  private openSecret(associatedData: string, sealed: Buffer | null, keyId: string | null): string | null {
    if (sealed === null) return null;
    if (keyId !== SETTINGS_SECRETS_KEY_ID) throw new SettingsUnreadableError('a secret was sealed with an unknown key');
    const plaintext = open(this.key, Buffer.from(sealed), associatedData);
    if (plaintext === null) throw new SettingsUnreadableError('a secret does not open for its row');
    return plaintext.toString('utf8');
  }
}

function stored<T>(schema: z.ZodType<T>, value: unknown, column: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new SettingsUnreadableError(`stored ${column} does not match its schema`);
  return parsed.data;
}

function storedTime(value: Date | string | null): Date | null {
  return value === null ? null : new Date(value);
}
