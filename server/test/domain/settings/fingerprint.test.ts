import { describe, expect, it } from 'vitest';
import type { ExternalToolConfig } from '@exb/shared/exb-policy.js';
import { resolveEffectiveSettings } from '../../../src/domain/settings/effective-settings.js';
import {
  SETTINGS_FINGERPRINT_VERSION,
  settingsFingerprint,
  settingsFingerprintPreimage,
  type FingerprintContext,
} from '../../../src/domain/settings/fingerprint.js';
import {
  defaultAssessmentSettings,
  emptyCourseDefaults,
  type AssessmentSettings,
  type CourseDefaults,
} from '../../../src/domain/settings/model.js';

interface State {
  assessment: AssessmentSettings;
  courseDefaults: CourseDefaults;
  managedExitPassword: string | null;
  context: FingerprintContext;
}

function tool(id: string, overrides: Partial<ExternalToolConfig> = {}): ExternalToolConfig {
  return {
    id,
    label: `Tool ${id}`,
    url: `https://${id}.example.edu/`,
    resourceRules: [],
    managedByAdmin: false,
    enabled: true,
    ...overrides,
  };
}

const PRESET = '3f2b8c1e-4d5a-4b6c-8d7e-9f0a1b2c3d4e';

function baseState(): State {
  return {
    assessment: {
      ...defaultAssessmentSettings('101', 'classicquiz_55'),
      exbRequired: true,
      enabled: true,
      accessCode: 'code-1',
      usesCourseDefaults: false,
      urlRules: [
        { id: 'r1', match: 'exact', value: 'https://docs.example.edu/a', label: 'A' },
        { match: 'domain', value: 'library.example.edu', broadDomainConfirmed: true },
      ],
      externalToolIds: ['calc', 'notes', 'managed'],
      quizOnlyTools: [tool('quiz-video', { url: 'https://exb.example.edu/exb/tool/video/dQw4w9WgXcQ' })],
      startPasswordOverride: null,
      exitPasswordOverride: null,
      verificationStatus: 'verified',
      updatedAt: new Date('2026-01-01T00:00:00Z'),
      version: 3,
    },
    courseDefaults: {
      ...emptyCourseDefaults('101'),
      urlRules: [{ match: 'exact', value: 'https://course.example.edu/' }],
      externalTools: [
        tool('calc', { resourceRules: [{ match: 'exact', value: 'https://cdn.example.edu/calc.js' }, { match: 'exact', value: 'https://cdn.example.edu/calc.css' }] }),
        tool('notes'),
        tool('managed', { managedByAdmin: true, presetId: PRESET }),
        tool('unselected'),
      ],
      startPassword: 'start-1',
      exitPassword: 'exit-1',
      setupCompleted: true,
      resetGeneration: 2,
      updatedAt: new Date('2026-01-01T00:00:00Z'),
    },
    managedExitPassword: 'managed-1',
    context: {
      lmsOrigin: 'https://lms.example.edu',
      serviceOrigin: 'https://exb.example.edu',
      quitUrl: 'https://exb.example.edu/exb/exit/complete/101/classicquiz_55/abc',
      additionalAllowedHosts: ['sso.example.edu'],
    },
  };
}

function fingerprint(state: State): string {
  const effective = resolveEffectiveSettings({
    assessment: state.assessment,
    courseDefaults: state.courseDefaults,
    managedExitPassword: state.managedExitPassword,
  });
  return settingsFingerprint(effective, state.context);
}

type Change = (state: State) => State;

const withAssessment = (change: Partial<AssessmentSettings>): Change => (s) => ({ ...s, assessment: { ...s.assessment, ...change } });
const withCourse = (change: Partial<CourseDefaults>): Change => (s) => ({ ...s, courseDefaults: { ...s.courseDefaults, ...change } });
const withContext = (change: Partial<FingerprintContext>): Change => (s) => ({ ...s, context: { ...s.context, ...change } });
const mapCatalog = (f: (tool: ExternalToolConfig) => ExternalToolConfig): Change => (s) =>
  withCourse({ externalTools: s.courseDefaults.externalTools.map(f) })(s);

const configurationInputs: [string, Change][] = [
  ['course id', (s) => ({ ...withAssessment({ courseId: '102' })(s), courseDefaults: { ...s.courseDefaults, courseId: '102' } })],
  ['content id', withAssessment({ contentId: 'classicquiz_56' })],
  ['LMS origin', withContext({ lmsOrigin: 'https://other-lms.example.edu' })],
  ['service origin', withContext({ serviceOrigin: 'https://exb2.example.edu' })],
  ['quit URL (regenerated access code)', withContext({ quitUrl: 'https://exb.example.edu/exb/exit/complete/101/classicquiz_55/def' })],
  ['quit URL removed', withContext({ quitUrl: null })],
  ['additional allowed host', withContext({ additionalAllowedHosts: ['sso.example.edu', 'idp.example.edu'] })],
  ['URL rule added', (s) => withAssessment({ urlRules: [...s.assessment.urlRules, { match: 'exact', value: 'https://new.example.edu/' }] })(s)],
  ['URL rule removed', (s) => withAssessment({ urlRules: s.assessment.urlRules.slice(1) })(s)],
  ['URL rule value', (s) => withAssessment({ urlRules: [{ ...s.assessment.urlRules[0]!, value: 'https://docs.example.edu/b' }, s.assessment.urlRules[1]!] })(s)],
  ['URL rule match', (s) => withAssessment({ urlRules: [s.assessment.urlRules[0]!, { match: 'exact', value: 'https://library.example.edu/' }] })(s)],
  ['switch to course URL policy', withAssessment({ usesCourseDefaults: true })],
  ['tool deselected', withAssessment({ externalToolIds: ['calc', 'notes'] })],
  ['selection inherits whole catalog', withAssessment({ externalToolIds: null })],
  ['tool switched off', mapCatalog((t) => (t.id === 'notes' ? { ...t, enabled: false } : t))],
  ['school-managed tool switched off', mapCatalog((t) => (t.id === 'managed' ? { ...t, enabled: false } : t))],
  ['tool launch URL', mapCatalog((t) => (t.id === 'notes' ? { ...t, url: 'https://notes2.example.edu/' } : t))],
  ['tool resource rule added', mapCatalog((t) => (t.id === 'notes' ? { ...t, resourceRules: [{ match: 'exact', value: 'https://x.example.edu/' }] } : t))],
  ['assessment tool added', (s) => withAssessment({ quizOnlyTools: [...s.assessment.quizOnlyTools, tool('q2')] })(s)],
  ['assessment tool switched off', (s) => withAssessment({ quizOnlyTools: s.assessment.quizOnlyTools.map((t) => ({ ...t, enabled: false })) })(s)],
  ['course start password', withCourse({ startPassword: 'start-2' })],
  ['start password override', withAssessment({ startPasswordOverride: 'own-start' })],
  ['start password removed', withCourse({ startPassword: null })],
  ['course exit password', withCourse({ exitPassword: 'exit-2' })],
  ['exit password override', withAssessment({ exitPasswordOverride: 'own-exit' })],
  ['exit password falls back to a different managed value', withCourse({ exitPassword: null })],
  ['managed exit password while it is in effect', (s) => ({ ...withCourse({ exitPassword: null })(s), managedExitPassword: 'managed-2' })],
];

const nonInputs: [string, Change][] = [
  ['exbRequired', withAssessment({ exbRequired: false })],
  ['enabled', withAssessment({ enabled: false })],
  ['access code itself', withAssessment({ accessCode: 'code-2' })],
  ['verification status', withAssessment({ verificationStatus: 'stale' })],
  ['timestamps and versions', (s) => ({ ...withAssessment({ updatedAt: new Date(), version: 9 })(s), courseDefaults: { ...s.courseDefaults, updatedAt: new Date() } })],
  ['setupCompleted', withCourse({ setupCompleted: false })],
  ['reset generation', withCourse({ resetGeneration: 3 })],
  ['course URL policy while the assessment has its own', withCourse({ urlRules: [] })],
  ['URL rule order', (s) => withAssessment({ urlRules: [...s.assessment.urlRules].reverse() })(s)],
  ['URL rule labels and ids', (s) => withAssessment({ urlRules: s.assessment.urlRules.map((r) => ({ ...r, id: 'other', label: 'Other' })) })(s)],
  ['repeated URL rule', (s) => withAssessment({ urlRules: [...s.assessment.urlRules, s.assessment.urlRules[0]!] })(s)],
  ['tool labels', mapCatalog((t) => ({ ...t, label: `${t.label} renamed` }))],
  ['tool order', (s) => withCourse({ externalTools: [...s.courseDefaults.externalTools].reverse() })(s)],
  ['selection order', withAssessment({ externalToolIds: ['managed', 'notes', 'calc'] })],
  ['resource rule order', mapCatalog((t) => ({ ...t, resourceRules: [...t.resourceRules].reverse() }))],
  ['managed flag and preset', mapCatalog((t) => ({ ...t, managedByAdmin: !t.managedByAdmin, presetId: PRESET }))],
  ['unselected catalog tool changed', mapCatalog((t) => (t.id === 'unselected' ? { ...t, url: 'https://elsewhere.example.edu/' } : t))],
  ['stale id in the selection', withAssessment({ externalToolIds: ['calc', 'notes', 'managed', 'deleted'] })],
  ['managed exit password while overridden', (s) => ({ ...s, managedExitPassword: 'managed-2' })],
  ['exit password source, same value', (s) => ({ ...withCourse({ exitPassword: null })(s), managedExitPassword: 'exit-1' })],
  ['start password source, same value', (s) => withCourse({ startPassword: null })(withAssessment({ startPasswordOverride: 'start-1' })(s))],
  ['origins spelled with a trailing slash', withContext({ lmsOrigin: 'https://LMS.example.edu/', serviceOrigin: 'https://exb.example.edu:443/' })],
  ['additional host order and case', withContext({ additionalAllowedHosts: ['SSO.example.edu', 'sso.example.edu'] })],
];

describe('settingsFingerprint', () => {
  const base = fingerprint(baseState());

  it('is a hex SHA-256 over a versioned preimage', () => {
    expect(base).toMatch(/^[0-9a-f]{64}$/);
    expect(fingerprint(baseState())).toBe(base);
    const effective = resolveEffectiveSettings({ ...baseState() });
    const preimage = settingsFingerprintPreimage(effective, baseState().context);
    expect(preimage.startsWith(`${SETTINGS_FINGERPRINT_VERSION}\n`)).toBe(true);
  });

  it('never embeds a password in the preimage', () => {
    const state = baseState();
    const effective = resolveEffectiveSettings({
      assessment: { ...state.assessment, startPasswordOverride: 'Pl41n-Start', exitPasswordOverride: 'Pl41n-Exit' },
      courseDefaults: state.courseDefaults,
    });
    const preimage = settingsFingerprintPreimage(effective, state.context);
    expect(preimage).not.toContain('Pl41n-Start');
    expect(preimage).not.toContain('Pl41n-Exit');
    expect(preimage).not.toContain('code-1');
  });

  it.each(configurationInputs)('changes when the %s changes', (_name, change) => {
    expect(fingerprint(change(baseState()))).not.toBe(base);
  });

  it.each(nonInputs)('stays the same when the %s changes', (_name, change) => {
    expect(fingerprint(change(baseState()))).toBe(base);
  });

  it('ignores the assessment URL policy while the assessment inherits the course policy', () => {
    const inheriting = withAssessment({ usesCourseDefaults: true })(baseState());
    expect(fingerprint(withAssessment({ urlRules: [] })(inheriting))).toBe(fingerprint(inheriting));
  });

  it('keeps start and exit passwords apart', () => {
    const state = baseState();
    const swapped = withCourse({ startPassword: 'exit-1', exitPassword: 'start-1' })(state);
    expect(fingerprint(swapped)).not.toBe(base);
  });

  it('refuses contexts that are not URLs', () => {
    const state = baseState();
    const effective = resolveEffectiveSettings(state);
    expect(() => settingsFingerprint(effective, { ...state.context, lmsOrigin: 'lms.example.edu' })).toThrow(TypeError);
  });
});
