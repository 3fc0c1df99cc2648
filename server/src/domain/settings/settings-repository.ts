import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Pool } from 'pg';
import type { Queryable } from '../../db/pg-transaction.js';
import type { AssessmentSettings, CourseDefaults } from './model.js';
import { settingsWritten } from './settings-generation.js';
import {
  ASSESSMENT_SETTING_COLUMNS,
  COURSE_DEFAULTS_COLUMNS,
  SETTINGS_COLUMNS,
  SettingsCodec,
  settingsJoin,
  type AssessmentSettingRow,
  type AssessmentSettingsDraft,
  type CourseDefaultsDraft,
  type CourseDefaultsRow,
  type SettingsRow,
} from './settings-codec.js';
import { checkCourse, checkScope, SettingsScopeError } from './settings-scope.js';
import { SETTINGS_TEXT_COLUMN } from './settings-text.js';
import {
  dueForVerification,
  listVerifications,
  recordVerification,
  type VerificationDue,
  type VerificationOutcome,
  type VerificationRecord,
} from './verification-records.js';

/**
 * Loads and saves assessment settings and course defaults: with the access-code checks (`verification-records.ts`)
 * and a course reset's statements (`reset-statements.ts`), the statements on `assessment_setting` and
 * `course_defaults` (statements that read a token together with its settings join them through `settings-codec.ts`).
 * Every method names the course it acts in and refuses rows of any other course (`settings-scope.ts`), so a caller
 * holding a session for one course cannot reach another by content id alone. Rows are encoded and decoded by
 * {@link SettingsCodec} only.
 */

export type { AssessmentSettingsDraft, CourseDefaultsDraft };

export class SettingsConflictError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SettingsConflictError';
  }
}

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

/** The database as the repository uses it: the ORM for management statements, the pool for the joined read. */
export interface SettingsDatabase {
  readonly orm: MikroORM;
  readonly pool: Pool;
}

export function createSettingsRepository(db: SettingsDatabase, appSecret: Buffer): SettingsRepository {
  return new SettingsRepository(db, SettingsCodec.fromAppSecret(appSecret));
}

/**
 * Both rows of one assessment in one statement, each by primary key: what every enforcement decision reads, the
 * instructors' views and the students' requirement, proof and redemption alike.
 */
export async function loadSettingsRow(db: Queryable, courseId: string, contentId: string): Promise<SettingsRow> {
  const result = await db.query<SettingsRow>({
    name: 'settings-row',
    text: `select ${SETTINGS_COLUMNS} from (select 1) as one ${settingsJoin('$1', '$2')}`,
    values: [courseId, contentId],
  });
  return result.rows[0]!;
}

/** {@link loadSettingsRow} as the one text of `settings-text.ts`, for the student paths. */
export async function loadSettingsText(db: Queryable, courseId: string, contentId: string): Promise<string> {
  const result = await db.query<{ settings_text: string }>({
    name: 'settings-text',
    text: `select ${SETTINGS_TEXT_COLUMN} from (select 1) as one ${settingsJoin('$1', '$2')}`,
    values: [courseId, contentId],
  });
  return result.rows[0]!.settings_text;
}

/** Whether an assessment's setting enforces it, read without opening any of its secrets. */
export interface EnforcementFlags {
  readonly contentId: string;
  readonly exbRequired: boolean;
  readonly enabled: boolean;
  readonly hasAccessCode: boolean;
}

export class SettingsRepository {
  constructor(
    private readonly db: SettingsDatabase,
    private readonly codec: SettingsCodec,
  ) {}

  private em(options: RepositoryOptions | undefined): EntityManager {
    return options?.em ?? this.db.orm.em.fork();
  }

  async loadAssessmentSettings(
    courseId: string,
    contentId: string,
    options?: RepositoryOptions,
  ): Promise<AssessmentSettings | null> {
    checkScope(courseId, contentId);
    const rows = await this.em(options).execute<AssessmentSettingRow[]>(
      `select ${ASSESSMENT_SETTING_COLUMNS} from assessment_setting s where s.course_id = ? and s.content_id = ?`,
      [courseId, contentId],
    );
    return rows[0] === undefined ? null : this.codec.assessment(rows[0]);
  }

  /** Every setting of the course, in content id order. */
  async listAssessmentSettings(courseId: string, options?: RepositoryOptions): Promise<AssessmentSettings[]> {
    checkCourse(courseId);
    const rows = await this.em(options).execute<AssessmentSettingRow[]>(
      `select ${ASSESSMENT_SETTING_COLUMNS} from assessment_setting s where s.course_id = ? order by s.content_id`,
      [courseId],
    );
    return rows.map((row) => this.codec.assessment(row)!);
  }

  /** Every setting of the course as flags only, in content id order: what a course reset decides from. */
  async listEnforcementFlags(courseId: string): Promise<EnforcementFlags[]> {
    checkCourse(courseId);
    const rows = await this.db.orm.em.getConnection().execute<{ content_id: string; exb_required: boolean; enabled: boolean; has_code: boolean }[]>(
      `select content_id, exb_required, enabled, access_code_sealed is not null as has_code
       from assessment_setting where course_id = ? order by content_id collate "C"`,
      [courseId],
    );
    return rows.map((row) => ({ contentId: row.content_id, exbRequired: row.exb_required, enabled: row.enabled, hasAccessCode: row.has_code }));
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
    const encoded = this.codec.encodeAssessment(settings);
    const { urlRules, externalToolIds, quizOnlyTools, verificationStatus, accessCode, startPassword, exitPassword } = encoded;
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
    settingsWritten();
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

  /** {@link recordVerification}: a check of the LMS's access code, kept only while the setting has `version`. */
  recordVerification(courseId: string, contentId: string, version: number, outcome: VerificationOutcome): Promise<boolean> {
    return recordVerification(this.em(undefined), courseId, contentId, version, outcome);
  }

  /** {@link listVerifications}: the last check of every enforced assessment of the course. */
  listVerifications(courseId: string): Promise<Map<string, VerificationRecord>> {
    return listVerifications(this.em(undefined), courseId);
  }

  /** {@link dueForVerification}: enforced published assessments whose last check is older than `checkedBefore`. */
  dueForVerification(limit: number, checkedBefore: Date): Promise<VerificationDue[]> {
    return dueForVerification(this.em(undefined), limit, checkedBefore);
  }

  async loadCourseDefaults(courseId: string, options?: RepositoryOptions): Promise<CourseDefaults | null> {
    checkCourse(courseId);
    const rows = await this.em(options).execute<CourseDefaultsRow[]>(
      `select ${COURSE_DEFAULTS_COLUMNS} from course_defaults d where d.course_id = ?`,
      [courseId],
    );
    return rows[0] === undefined ? null : this.codec.courseDefaults(rows[0]);
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
    const { urlRules, externalTools, startPassword, exitPassword } = this.codec.encodeCourseDefaults(defaults);
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
    settingsWritten();
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

  /**
   * Drops tools that left the course's catalog from every assessment's tool selection: a selection that named such a
   * tool would silently select nothing. Each changed setting's version moves, so its fingerprint changes with it.
   */
  async dropToolSelections(courseId: string, toolIds: readonly string[], options?: RepositoryOptions): Promise<void> {
    checkCourse(courseId);
    if (toolIds.length === 0) return;
    const removed = JSON.stringify(toolIds);
    await this.em(options).execute(
      `update assessment_setting set
         external_tool_ids = (select coalesce(jsonb_agg(id), '[]'::jsonb) from jsonb_array_elements(external_tool_ids) id
                              where not (id #>> '{}') = any(array(select jsonb_array_elements_text(?::jsonb)))),
         version = version + 1, updated_at = now()
       where course_id = ? and external_tool_ids is not null
         and jsonb_exists_any(external_tool_ids, array(select jsonb_array_elements_text(?::jsonb)))`,
      [removed, courseId, removed],
      'run',
    );
    settingsWritten();
  }

  /** What the effective configuration of one assessment is resolved from: both rows, read in one statement. */
  async loadPolicyInputs(
    courseId: string,
    contentId: string,
  ): Promise<{ assessment: AssessmentSettings | null; courseDefaults: CourseDefaults | null }> {
    checkScope(courseId, contentId);
    const row = await loadSettingsRow(this.db.pool, courseId, contentId);
    return { assessment: this.codec.assessment(row), courseDefaults: this.codec.courseDefaults(row) };
  }
}
