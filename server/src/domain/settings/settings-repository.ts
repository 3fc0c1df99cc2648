import type { InferEntity } from '@mikro-orm/core';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { contentIdMatchesCourse, isContentId, isLmsId } from '@exb/shared/content-id.js';
import {
  EXB_POLICY_LIMITS,
  exbUrlRuleSchema,
  externalToolConfigSchema,
} from '@exb/shared/exb-policy.js';
import { AssessmentSetting } from '../../db/entities/assessment-setting.js';
import { CourseDefaults as CourseDefaultsEntity } from '../../db/entities/course-defaults.js';
import { open, seal } from '../../security/aead.js';
import { deriveKey } from '../../security/derived-keys.js';
import { verificationStatusSchema, type AssessmentSettings, type CourseDefaults } from './model.js';

/**
 * Loads and saves assessment settings and course defaults. Every method names the course it acts in and refuses rows
 * of any other course, so a caller holding a session for one course cannot reach another by content id alone.
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

export class SettingsConflictError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SettingsConflictError';
  }
}

export class SettingsScopeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SettingsScopeError';
  }
}

/** A stored secret that does not open: wrong key, moved ciphertext or tampering. Never silently treated as absent. */
export class SettingsSecretError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SettingsSecretError';
  }
}

const urlRulesSchema = z.array(exbUrlRuleSchema).max(EXB_POLICY_LIMITS.urlRules);
const catalogSchema = z.array(externalToolConfigSchema).max(EXB_POLICY_LIMITS.catalogTools);
const quizOnlyToolsSchema = z.array(externalToolConfigSchema).max(EXB_POLICY_LIMITS.quizOnlyTools);
const toolIdsSchema = z.array(z.string().min(1).max(EXB_POLICY_LIMITS.idLength)).max(EXB_POLICY_LIMITS.catalogTools);
const MAX_SECRET_LENGTH = 1024;

type AssessmentSecret = 'access_code' | 'start_password' | 'exit_password';
type CourseSecret = 'start_password' | 'exit_password';

export interface RepositoryOptions {
  /** Run inside the caller's transaction; by default each call uses a fresh fork of the ORM's entity manager. */
  readonly em?: EntityManager;
}

export interface SaveCourseDefaultsOptions extends RepositoryOptions {
  /**
   * Write only while the course's reset generation still equals this (a missing row counts as generation 0), else
   * throw {@link SettingsConflictError}: a copy that snapshotted the generation never writes into a reset course.
   */
  readonly expectedResetGeneration?: number;
}

export type AssessmentSettingsDraft = Omit<AssessmentSettings, 'updatedAt'>;
export type CourseDefaultsDraft = Omit<CourseDefaults, 'updatedAt' | 'resetGeneration'>;

export function createSettingsRepository(orm: MikroORM, appSecret: Buffer): SettingsRepository {
  return new SettingsRepository(orm, deriveKey(appSecret, 'settings-secrets'));
}

export class SettingsRepository {
  constructor(
    private readonly orm: MikroORM,
    private readonly key: Buffer,
  ) {}

  private em(options: RepositoryOptions | undefined): EntityManager {
    return options?.em ?? this.orm.em.fork();
  }

  async loadAssessmentSettings(
    courseId: string,
    contentId: string,
    options?: RepositoryOptions,
  ): Promise<AssessmentSettings | null> {
    checkScope(courseId, contentId);
    const row = await this.em(options).findOne(
      AssessmentSetting,
      { courseId, contentId },
      { disableIdentityMap: true },
    );
    return row === null ? null : this.toAssessmentSettings(row);
  }

  /** Every setting of the course, in content id order. */
  async listAssessmentSettings(courseId: string, options?: RepositoryOptions): Promise<AssessmentSettings[]> {
    checkCourse(courseId);
    const rows = await this.em(options).find(
      AssessmentSetting,
      { courseId },
      { orderBy: { contentId: 'asc' }, disableIdentityMap: true },
    );
    return rows.map((row) => this.toAssessmentSettings(row));
  }

  /**
   * Inserts (`version` 0) or updates (`version` as loaded) one setting and returns it with the new version and time.
   * Throws {@link SettingsConflictError} when the row was written since it was loaded, or already exists on insert.
   */
  async saveAssessmentSettings(
    courseId: string,
    settings: AssessmentSettingsDraft,
    options?: RepositoryOptions,
  ): Promise<AssessmentSettings> {
    checkScope(courseId, settings.contentId);
    if (settings.courseId !== courseId) throw new SettingsScopeError('setting belongs to another course');
    const { contentId } = settings;
    const urlRules = urlRulesSchema.parse(settings.urlRules);
    const externalToolIds = settings.externalToolIds === null ? null : toolIdsSchema.parse(settings.externalToolIds);
    const quizOnlyTools = quizOnlyToolsSchema.parse(settings.quizOnlyTools);
    const verificationStatus = verificationStatusSchema.parse(settings.verificationStatus);
    const accessCode = this.sealAssessmentSecret(courseId, contentId, 'access_code', settings.accessCode);
    const startPassword = this.sealAssessmentSecret(courseId, contentId, 'start_password', settings.startPasswordOverride);
    const exitPassword = this.sealAssessmentSecret(courseId, contentId, 'exit_password', settings.exitPasswordOverride);
    const values = [
      settings.exbRequired,
      settings.enabled,
      accessCode.sealed,
      accessCode.keyId,
      settings.usesCourseDefaults,
      JSON.stringify(urlRules),
      externalToolIds === null ? null : JSON.stringify(externalToolIds),
      JSON.stringify(quizOnlyTools),
      startPassword.sealed,
      startPassword.keyId,
      exitPassword.sealed,
      exitPassword.keyId,
      verificationStatus,
    ];
    const em = this.em(options);
    let rows: { version: number; updated_at: Date }[];
    if (settings.version === 0) {
      rows = await em.execute(
        `insert into assessment_setting (
           exb_required, enabled, access_code_sealed, access_code_key_id, uses_course_defaults, url_rules,
           external_tool_ids, quiz_only_tools, start_password_sealed, start_password_key_id, exit_password_sealed,
           exit_password_key_id, verification_status, course_id, content_id, updated_at, version
         ) values (?, ?, ?, ?, ?, ?::jsonb, ?::jsonb, ?::jsonb, ?, ?, ?, ?, ?, ?, ?, now(), 1)
         on conflict (course_id, content_id) do nothing
         returning version, updated_at`,
        [...values, courseId, contentId],
      );
    } else {
      rows = await em.execute(
        `update assessment_setting set
           exb_required = ?, enabled = ?, access_code_sealed = ?, access_code_key_id = ?, uses_course_defaults = ?,
           url_rules = ?::jsonb, external_tool_ids = ?::jsonb, quiz_only_tools = ?::jsonb, start_password_sealed = ?,
           start_password_key_id = ?, exit_password_sealed = ?, exit_password_key_id = ?, verification_status = ?,
           updated_at = now(), version = version + 1
         where course_id = ? and content_id = ? and version = ?
         returning version, updated_at`,
        [...values, courseId, contentId, settings.version],
      );
    }
    const saved = rows[0];
    if (saved === undefined) {
      throw new SettingsConflictError(
        settings.version === 0 ? 'assessment setting already exists' : 'assessment setting was changed concurrently',
      );
    }
    return {
      ...settings,
      urlRules,
      externalToolIds,
      quizOnlyTools,
      verificationStatus,
      version: saved.version,
      updatedAt: new Date(saved.updated_at),
    };
  }

  async loadCourseDefaults(courseId: string, options?: RepositoryOptions): Promise<CourseDefaults | null> {
    checkCourse(courseId);
    const row = await this.em(options).findOne(CourseDefaultsEntity, { courseId }, { disableIdentityMap: true });
    return row === null ? null : this.toCourseDefaults(row);
  }

  /**
   * Creates or replaces the course's defaults and catalog. The reset generation is never written here; it only moves
   * with a course reset.
   */
  async saveCourseDefaults(
    courseId: string,
    defaults: CourseDefaultsDraft,
    options?: SaveCourseDefaultsOptions,
  ): Promise<CourseDefaults> {
    checkCourse(courseId);
    if (defaults.courseId !== courseId) throw new SettingsScopeError('defaults belong to another course');
    const urlRules = urlRulesSchema.parse(defaults.urlRules);
    const externalTools = catalogSchema.parse(defaults.externalTools);
    const startPassword = this.sealCourseSecret(courseId, 'start_password', defaults.startPassword);
    const exitPassword = this.sealCourseSecret(courseId, 'exit_password', defaults.exitPassword);
    const expected = options?.expectedResetGeneration;
    if (expected !== undefined && (!Number.isSafeInteger(expected) || expected < 0)) {
      throw new RangeError('expectedResetGeneration must be a non-negative integer');
    }
    const values = [
      courseId,
      JSON.stringify(urlRules),
      JSON.stringify(externalTools),
      startPassword.sealed,
      startPassword.keyId,
      exitPassword.sealed,
      exitPassword.keyId,
      defaults.setupCompleted,
    ];
    // With an expected generation, a missing row may only be created when generation 0 was expected, and an existing
    // row is only replaced while its generation is unchanged. The insert is still attempted when the row exists, since
    // only the conflict reaches the guarded update.
    const guardInsert =
      expected === undefined ? '' : 'where ?::integer = 0 or exists (select 1 from course_defaults where course_id = ?)';
    const guardUpdate = expected === undefined ? '' : 'where course_defaults.reset_generation = ?';
    const rows = await this.em(options).execute<{ reset_generation: number; updated_at: Date }[]>(
      `insert into course_defaults (
         course_id, url_rules, external_tools, start_password_sealed, start_password_key_id, exit_password_sealed,
         exit_password_key_id, setup_completed, updated_at
       )
       select ?, ?::jsonb, ?::jsonb, ?::bytea, ?, ?::bytea, ?, ?::boolean, now() ${guardInsert}
       on conflict (course_id) do update set
         url_rules = excluded.url_rules, external_tools = excluded.external_tools,
         start_password_sealed = excluded.start_password_sealed, start_password_key_id = excluded.start_password_key_id,
         exit_password_sealed = excluded.exit_password_sealed, exit_password_key_id = excluded.exit_password_key_id,
         setup_completed = excluded.setup_completed, updated_at = now()
       ${guardUpdate}
       returning reset_generation, updated_at`,
      expected === undefined ? values : [...values, expected, courseId, expected],
    );
    const saved = rows[0];
    if (saved === undefined) throw new SettingsConflictError('course was reset since its generation was read');
    return {
      ...defaults,
      urlRules,
      externalTools,
      resetGeneration: saved.reset_generation,
      updatedAt: new Date(saved.updated_at),
    };
  }

  /** What the effective configuration of one assessment is resolved from, read in one place for the student flow. */
  async loadPolicyInputs(
    courseId: string,
    contentId: string,
    options?: RepositoryOptions,
  ): Promise<{ assessment: AssessmentSettings | null; courseDefaults: CourseDefaults | null }> {
    const em = this.em(options);
    const [assessment, courseDefaults] = [
      await this.loadAssessmentSettings(courseId, contentId, { em }),
      await this.loadCourseDefaults(courseId, { em }),
    ];
    return { assessment, courseDefaults };
  }

  private toAssessmentSettings(row: InferEntity<typeof AssessmentSetting>): AssessmentSettings {
    const { courseId, contentId } = row;
    return {
      courseId,
      contentId,
      exbRequired: row.exbRequired,
      enabled: row.enabled,
      accessCode: this.openAssessmentSecret(courseId, contentId, 'access_code', row.accessCodeSealed, row.accessCodeKeyId),
      usesCourseDefaults: row.usesCourseDefaults,
      urlRules: storedValue(urlRulesSchema, row.urlRules, 'url_rules'),
      externalToolIds: row.externalToolIds === null || row.externalToolIds === undefined
        ? null
        : storedValue(toolIdsSchema, row.externalToolIds, 'external_tool_ids'),
      quizOnlyTools: storedValue(quizOnlyToolsSchema, row.quizOnlyTools, 'quiz_only_tools'),
      startPasswordOverride: this.openAssessmentSecret(
        courseId,
        contentId,
        'start_password',
        row.startPasswordSealed,
        row.startPasswordKeyId,
      ),
      exitPasswordOverride: this.openAssessmentSecret(
        courseId,
        contentId,
        'exit_password',
        row.exitPasswordSealed,
        row.exitPasswordKeyId,
      ),
      verificationStatus: storedValue(verificationStatusSchema, row.verificationStatus, 'verification_status'),
      updatedAt: row.updatedAt,
      version: row.version,
    };
  }

  private toCourseDefaults(row: InferEntity<typeof CourseDefaultsEntity>): CourseDefaults {
    const { courseId } = row;
    return {
      courseId,
      urlRules: storedValue(urlRulesSchema, row.urlRules, 'url_rules'),
      externalTools: storedValue(catalogSchema, row.externalTools, 'external_tools'),
      startPassword: this.openCourseSecret(courseId, 'start_password', row.startPasswordSealed, row.startPasswordKeyId),
      exitPassword: this.openCourseSecret(courseId, 'exit_password', row.exitPasswordSealed, row.exitPasswordKeyId),
      setupCompleted: row.setupCompleted,
      resetGeneration: row.resetGeneration,
      updatedAt: row.updatedAt,
    };
  }

  private sealAssessmentSecret(courseId: string, contentId: string, column: AssessmentSecret, value: string | null) {
    return this.sealSecret(`assessment_setting:${courseId}:${contentId}:${column}`, value);
  }

  private sealCourseSecret(courseId: string, column: CourseSecret, value: string | null) {
    return this.sealSecret(`course_defaults:${courseId}:${column}`, value);
  }

  private sealSecret(associatedData: string, value: string | null): { sealed: Buffer | null; keyId: string | null } {
    if (value === null) return { sealed: null, keyId: null };
    if (typeof value !== 'string' || value.length === 0 || value.length > MAX_SECRET_LENGTH) {
      throw new RangeError('a stored secret must be a non-empty string of bounded length, or null');
    }
    return { sealed: seal(this.key, Buffer.from(value, 'utf8'), associatedData), keyId: SETTINGS_SECRETS_KEY_ID };
  }

  private openAssessmentSecret(
    courseId: string,
    contentId: string,
    column: AssessmentSecret,
    sealed: Uint8Array | null | undefined,
    keyId: string | null | undefined,
  ): string | null {
    return this.openSecret(`assessment_setting:${courseId}:${contentId}:${column}`, sealed, keyId);
  }

  private openCourseSecret(
    courseId: string,
    column: CourseSecret,
    sealed: Uint8Array | null | undefined,
    keyId: string | null | undefined,
  ): string | null {
    return this.openSecret(`course_defaults:${courseId}:${column}`, sealed, keyId);
  }

  private openSecret(associatedData: string, sealed: Uint8Array | null | undefined, keyId: string | null | undefined) {
    if (sealed === null || sealed === undefined) return null;
    if (keyId !== SETTINGS_SECRETS_KEY_ID) throw new SettingsSecretError('secret was sealed with an unknown key');
    const plaintext = open(this.key, Buffer.from(sealed), associatedData);
    if (plaintext === null) throw new SettingsSecretError('secret does not open for this row');
    return plaintext.toString('utf8');
  }
}

function checkCourse(courseId: string): void {
  if (!isLmsId(courseId)) throw new SettingsScopeError('course id is not a canonical LMS id');
}

function checkScope(courseId: string, contentId: string): void {
  checkCourse(courseId);
  if (!isContentId(contentId) || !contentIdMatchesCourse(contentId, courseId)) {
    throw new SettingsScopeError('content id is not a canonical content id of this course');
  }
}

function storedValue<T>(schema: z.ZodType<T>, value: unknown, column: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new Error(`stored ${column} does not match its schema`);
  return parsed.data;
}

