import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExternalToolConfig } from '@exb/shared/exb-policy.js';
import {
  defaultAssessmentSettings,
  emptyCourseDefaults,
  type AssessmentSettings,
} from '../../../src/domain/settings/model.js';
import { SETTINGS_SECRETS_KEY_ID, SettingsCodec, SettingsUnreadableError } from '../../../src/domain/settings/settings-codec.js';
import { SettingsScopeError } from '../../../src/domain/settings/settings-scope.js';
import { settingsRowFromText } from '../../../src/domain/settings/settings-text.js';
import {
  SettingsConflictError,
  createSettingsRepository,
  loadSettingsRow,
  loadSettingsText,
  type SettingsRepository,
} from '../../../src/domain/settings/settings-repository.js';
import { createTestApp, type TestApp } from '../../support/app.js';

const TOOL: ExternalToolConfig = {
  id: 'calc',
  label: 'Calculator',
  url: 'https://calc.example.edu/',
  resourceRules: [{ match: 'domain', value: 'cdn.example.edu', broadDomainConfirmed: true }],
  managedByAdmin: false,
  enabled: true,
};

function configured(courseId: string, contentId: string): AssessmentSettings {
  return {
    ...defaultAssessmentSettings(courseId, contentId),
    exbRequired: true,
    enabled: true,
    accessCode: 'Access-Code-7731',
    usesCourseDefaults: false,
    urlRules: [{ id: 'r1', match: 'exact', value: 'https://docs.example.edu/a', label: 'Docs' }],
    externalToolIds: ['calc'],
    quizOnlyTools: [{ ...TOOL, id: 'own', url: 'https://own.example.edu/' }],
    startPasswordOverride: 'Start-Secret-1',
    exitPasswordOverride: 'Exit-Secret-1',
    verificationStatus: 'verified',
  };
}

describe('settings repository', () => {
  let t: TestApp;
  let repository: SettingsRepository;

  const sql = <T extends Record<string, unknown>[] = Record<string, unknown>[]>(query: string, params: unknown[] = []) =>
    t.db.orm.em.getConnection().execute<T>(query, params);

  beforeAll(async () => {
    t = await createTestApp();
    repository = createSettingsRepository(t.db, t.config.secrets.appSecret);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('creates the three tables as the entities describe them', async () => {
    const diff = await t.db.orm.schema.getUpdateSchemaSQL({ wrap: false });
    // Check constraints and triggers (the administrator's counts) live in the migrations only; every column, key and
    // default must agree.
    const ours = diff
      .split(/;\s*\n/)
      .map((statement) => statement.trim())
      .filter((statement) => /"(assessment|assessment_setting|course_defaults)"/.test(statement))
      .filter((statement) => !/drop constraint "\w+_(check|key)"$/.test(statement))
      .filter((statement) => !/^drop trigger if exists "\w+" on "\w+"$/.test(statement));
    expect(ours).toEqual([]);
  });

  it('saves and loads an assessment setting, advancing its version', async () => {
    const draft = configured('11', 'classicquiz_1');
    const saved = await repository.saveAssessmentSettings('11', draft);
    expect(saved.version).toBe(1);
    expect(saved.updatedAt).toBeInstanceOf(Date);

    const loaded = await repository.loadAssessmentSettings('11', 'classicquiz_1');
    expect(loaded).toEqual({ ...draft, version: 1, updatedAt: loaded?.updatedAt });

    const updated = await repository.saveAssessmentSettings('11', { ...loaded!, accessCode: null, externalToolIds: null });
    expect(updated.version).toBe(2);
    const reloaded = await repository.loadAssessmentSettings('11', 'classicquiz_1');
    expect(reloaded).toMatchObject({ accessCode: null, externalToolIds: null, version: 2 });
  });

  it('refuses a write based on a stale version, and a second insert', async () => {
    const first = await repository.saveAssessmentSettings('12', configured('12', 'classicquiz_2'));
    await repository.saveAssessmentSettings('12', { ...first, enabled: false });
    await expect(repository.saveAssessmentSettings('12', { ...first, exbRequired: false })).rejects.toBeInstanceOf(
      SettingsConflictError,
    );
    await expect(repository.saveAssessmentSettings('12', configured('12', 'classicquiz_2'))).rejects.toBeInstanceOf(
      SettingsConflictError,
    );
    expect(await repository.loadAssessmentSettings('12', 'classicquiz_2')).toMatchObject({ enabled: false, exbRequired: true, version: 2 });
  });

  it('lets exactly one of two concurrent writers of the same version win', async () => {
    const base = await repository.saveAssessmentSettings('13', configured('13', 'classicquiz_3'));
    const results = await Promise.allSettled([
      repository.saveAssessmentSettings('13', { ...base, enabled: false }),
      repository.saveAssessmentSettings('13', { ...base, usesCourseDefaults: true }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(results.filter((r) => r.status === 'rejected' && r.reason instanceof SettingsConflictError)).toHaveLength(1);
  });

  it('stores secrets sealed, with their key id, never in plain text', async () => {
    await repository.saveAssessmentSettings('14', configured('14', 'newquiz:14:4'));
    const [row] = await sql<Record<string, unknown>[]>(
      "select * from assessment_setting where course_id = '14' and content_id = 'newquiz:14:4'",
    );
    expect(row?.access_code_key_id).toBe(SETTINGS_SECRETS_KEY_ID);
    expect(row?.start_password_key_id).toBe(SETTINGS_SECRETS_KEY_ID);
    expect(row?.exit_password_key_id).toBe(SETTINGS_SECRETS_KEY_ID);
    const raw = JSON.stringify(row) + Object.values(row ?? {}).map((v) => (Buffer.isBuffer(v) ? v.toString('latin1') : '')).join('');
    for (const secret of ['Access-Code-7731', 'Start-Secret-1', 'Exit-Secret-1']) expect(raw).not.toContain(secret);
  });

  it('refuses a sealed secret moved to another row or column', async () => {
    await repository.saveAssessmentSettings('15', configured('15', 'classicquiz_5'));
    await repository.saveAssessmentSettings('15', { ...configured('15', 'classicquiz_6'), accessCode: null });
    await sql(
      `update assessment_setting set access_code_sealed = (select access_code_sealed from assessment_setting
         where course_id = '15' and content_id = 'classicquiz_5'), access_code_key_id = ?
       where course_id = '15' and content_id = 'classicquiz_6'`,
      [SETTINGS_SECRETS_KEY_ID],
    );
    await expect(repository.loadAssessmentSettings('15', 'classicquiz_6')).rejects.toBeInstanceOf(SettingsUnreadableError);

    await sql(
      `update assessment_setting set exit_password_sealed = start_password_sealed
       where course_id = '15' and content_id = 'classicquiz_5'`,
    );
    await expect(repository.loadAssessmentSettings('15', 'classicquiz_5')).rejects.toBeInstanceOf(SettingsUnreadableError);
  });

  it('keeps every read and write inside the named course', async () => {
    await repository.saveAssessmentSettings('16', configured('16', 'classicquiz_7'));
    await repository.saveAssessmentSettings('17', configured('17', 'classicquiz_8'));
    expect(await repository.loadAssessmentSettings('17', 'classicquiz_7')).toBeNull();
    expect((await repository.listAssessmentSettings('16')).map((s) => s.contentId)).toEqual(['classicquiz_7']);
    await expect(repository.loadAssessmentSettings('16', 'newquiz:17:1')).rejects.toBeInstanceOf(SettingsScopeError);
    await expect(repository.loadAssessmentSettings('016', 'classicquiz_7')).rejects.toBeInstanceOf(SettingsScopeError);
    await expect(repository.loadAssessmentSettings('16', '7')).rejects.toBeInstanceOf(SettingsScopeError);
    await expect(repository.saveAssessmentSettings('16', configured('17', 'classicquiz_9'))).rejects.toBeInstanceOf(SettingsScopeError);
    await expect(repository.saveCourseDefaults('16', emptyCourseDefaults('17'))).rejects.toBeInstanceOf(SettingsScopeError);
  });

  it('refuses malformed policies and secrets before writing', async () => {
    const base = configured('18', 'classicquiz_10');
    await expect(
      repository.saveAssessmentSettings('18', { ...base, urlRules: [{ match: 'regex', value: '.*' }] as never }),
    ).rejects.toThrow();
    await expect(repository.saveAssessmentSettings('18', { ...base, accessCode: '' })).rejects.toThrow(RangeError);
    expect(await repository.loadAssessmentSettings('18', 'classicquiz_10')).toBeNull();
  });

  it('takes part in the caller transaction', async () => {
    await expect(
      t.db.orm.em.fork().transactional(async (em) => {
        await repository.saveAssessmentSettings('19', configured('19', 'classicquiz_11'), { em });
        expect(await repository.loadAssessmentSettings('19', 'classicquiz_11', { em })).not.toBeNull();
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await repository.loadAssessmentSettings('19', 'classicquiz_11')).toBeNull();
  });

  it('saves and loads course defaults without touching the reset generation', async () => {
    expect(await repository.loadCourseDefaults('21')).toBeNull();
    const draft = {
      courseId: '21',
      urlRules: [{ match: 'exact' as const, value: 'https://course.example.edu/' }],
      externalTools: [TOOL, { ...TOOL, id: 'managed', managedByAdmin: true, presetId: '3f2b8c1e-4d5a-4b6c-8d7e-9f0a1b2c3d4e' }],
      startPassword: 'Course-Start',
      exitPassword: 'Course-Exit',
      setupCompleted: true,
    };
    const saved = await repository.saveCourseDefaults('21', draft);
    expect(saved).toMatchObject({ ...draft, resetGeneration: 0 });
    expect(await repository.loadCourseDefaults('21')).toEqual({ ...draft, resetGeneration: 0, updatedAt: expect.any(Date) });

    await sql("update course_defaults set reset_generation = 4 where course_id = '21'");
    const replaced = await repository.saveCourseDefaults('21', { ...draft, exitPassword: null, setupCompleted: false });
    expect(replaced.resetGeneration).toBe(4);
    expect(await repository.loadCourseDefaults('21')).toMatchObject({ exitPassword: null, startPassword: 'Course-Start', resetGeneration: 4 });

    const [row] = await sql<Record<string, unknown>[]>("select * from course_defaults where course_id = '21'");
    expect(Buffer.from(row?.start_password_sealed as Buffer).toString('latin1')).not.toContain('Course-Start');
  });

  it('writes course defaults only while the reset generation is the expected one', async () => {
    const draft = { ...emptyCourseDefaults('22'), setupCompleted: true };
    await expect(repository.saveCourseDefaults('22', draft, { expectedResetGeneration: 1 })).rejects.toBeInstanceOf(
      SettingsConflictError,
    );
    expect(await repository.loadCourseDefaults('22')).toBeNull();
    await repository.saveCourseDefaults('22', draft, { expectedResetGeneration: 0 });
    await repository.saveCourseDefaults('22', { ...draft, setupCompleted: false }, { expectedResetGeneration: 0 });
    await sql("update course_defaults set reset_generation = 1 where course_id = '22'");
    await expect(
      repository.saveCourseDefaults('22', { ...draft, urlRules: [{ match: 'exact', value: 'https://x.example.edu/' }] }, { expectedResetGeneration: 0 }),
    ).rejects.toBeInstanceOf(SettingsConflictError);
    expect(await repository.loadCourseDefaults('22')).toMatchObject({ urlRules: [], setupCompleted: false, resetGeneration: 1 });
    await repository.saveCourseDefaults('22', draft, { expectedResetGeneration: 1 });
  });

  it('loads both policy inputs of one assessment', async () => {
    await repository.saveCourseDefaults('23', { ...emptyCourseDefaults('23'), exitPassword: 'E' });
    const inputs = await repository.loadPolicyInputs('23', 'classicquiz_12');
    expect(inputs.assessment).toBeNull();
    expect(inputs.courseDefaults).toMatchObject({ courseId: '23', exitPassword: 'E' });
  });

  it('reads through the joined loader exactly what the single-row loads read, for every path alike', async () => {
    await repository.saveCourseDefaults('24', { ...emptyCourseDefaults('24'), startPassword: 'S', externalTools: [TOOL], setupCompleted: true });
    await repository.saveAssessmentSettings('24', configured('24', 'classicquiz_13'));
    const codec = SettingsCodec.fromAppSecret(t.config.secrets.appSecret);
    const row = await loadSettingsRow(t.db.pool, '24', 'classicquiz_13');
    expect(codec.assessment(row)).toEqual(await repository.loadAssessmentSettings('24', 'classicquiz_13'));
    expect(codec.courseDefaults(row)).toEqual(await repository.loadCourseDefaults('24'));
    expect(await repository.loadPolicyInputs('24', 'classicquiz_13')).toEqual({
      assessment: codec.assessment(row),
      courseDefaults: codec.courseDefaults(row),
    });

    // A secret that no longer opens makes the setting unreadable on both paths, never silently absent on one.
    await sql("update assessment_setting set exit_password_sealed = start_password_sealed where course_id = '24'");
    const moved = await loadSettingsRow(t.db.pool, '24', 'classicquiz_13');
    expect(() => codec.assessment(moved)).toThrow(SettingsUnreadableError);
    await expect(repository.loadPolicyInputs('24', 'classicquiz_13')).rejects.toBeInstanceOf(SettingsUnreadableError);
  });

  it('reads as one text exactly the row the settings columns select, whatever the columns hold', async () => {
    const same = async (courseId: string, contentId: string) => {
      const text = await loadSettingsText(t.db.pool, courseId, contentId);
      expect(settingsRowFromText(text)).toStrictEqual(await loadSettingsRow(t.db.pool, courseId, contentId));
      return text;
    };
    // Neither row, the defaults alone, both rows with every secret, tool and rule, then odd stored values.
    const absent = await same('25', 'classicquiz_14');
    await repository.saveCourseDefaults('25', { ...emptyCourseDefaults('25'), exitPassword: 'E' });
    const defaultsOnly = await same('25', 'classicquiz_14');
    await repository.saveCourseDefaults('25', { ...emptyCourseDefaults('25'), startPassword: 'S', externalTools: [TOOL], setupCompleted: true });
    await repository.saveAssessmentSettings('25', configured('25', 'classicquiz_14'));
    const both = await same('25', 'classicquiz_14');
    await sql(
      `update assessment_setting set updated_at = '2030-01-02 03:04:05.581999+00', url_rules = '[{"match":"exact","value":"https://x.example.edu/?a=\\"b\\"&c=ü"}]',
         external_tool_ids = null where course_id = '25'`,
    );
    const odd = await same('25', 'classicquiz_14');
    expect(new Set([absent, defaultsOnly, both, odd]).size).toBe(4);
    const codec = SettingsCodec.fromAppSecret(t.config.secrets.appSecret);
    expect(codec.assessment(settingsRowFromText(odd))).toEqual(codec.assessment(await loadSettingsRow(t.db.pool, '25', 'classicquiz_14')));
  });
});
