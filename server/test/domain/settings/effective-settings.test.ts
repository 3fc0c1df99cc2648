import { describe, expect, it } from 'vitest';
import type { ExternalToolConfig } from '@exb/shared/exb-policy.js';
import {
  approvedTools,
  resolveEffectiveSettings,
  resolveExitPassword,
  resolveStartPassword,
  selectTools,
} from '../../../src/domain/settings/effective-settings.js';
import { defaultAssessmentSettings, emptyCourseDefaults } from '../../../src/domain/settings/model.js';

function tool(id: string, overrides: Partial<ExternalToolConfig> = {}): ExternalToolConfig {
  return { id, label: `Tool ${id}`, url: `https://${id}.example.edu/`, resourceRules: [], managedByAdmin: false, enabled: true, ...overrides };
}

describe('resolveExitPassword', () => {
  const cases: [string, string | null, string | null, string | null | undefined, { value: string | null; source: string }][] = [
    ['assessment override first', 'a', 'c', 'm', { value: 'a', source: 'assessment' }],
    ['course default next', null, 'c', 'm', { value: 'c', source: 'course' }],
    ['managed default next', null, null, 'm', { value: 'm', source: 'managed' }],
    ['none last', null, null, undefined, { value: null, source: 'none' }],
    ['none when managed is null', null, null, null, { value: null, source: 'none' }],
    ['empty override falls through', '', 'c', 'm', { value: 'c', source: 'course' }],
    ['empty course default falls through', null, '', 'm', { value: 'm', source: 'managed' }],
    ['empty managed default is none', null, null, '', { value: null, source: 'none' }],
  ];
  it.each(cases)('%s', (_name, override, course, managed, expected) => {
    expect(resolveExitPassword({ exitPasswordOverride: override }, { exitPassword: course }, managed)).toEqual(expected);
  });

  it('resolves the course-level password without an assessment', () => {
    expect(resolveExitPassword(null, { exitPassword: 'c' }, 'm')).toEqual({ value: 'c', source: 'course' });
    expect(resolveExitPassword(null, null, 'm')).toEqual({ value: 'm', source: 'managed' });
    expect(resolveExitPassword(null, null, undefined)).toEqual({ value: null, source: 'none' });
  });
});

describe('resolveStartPassword', () => {
  it('takes the assessment override, then the course default, then none; never a managed value', () => {
    expect(resolveStartPassword({ startPasswordOverride: 'a' }, { startPassword: 'c' })).toEqual({ value: 'a', source: 'assessment' });
    expect(resolveStartPassword({ startPasswordOverride: null }, { startPassword: 'c' })).toEqual({ value: 'c', source: 'course' });
    expect(resolveStartPassword({ startPasswordOverride: null }, { startPassword: null })).toEqual({ value: null, source: 'none' });
    expect(resolveStartPassword({ startPasswordOverride: '' }, null)).toEqual({ value: null, source: 'none' });
  });
});

describe('selectTools', () => {
  const catalog = [tool('a'), tool('b', { enabled: false }), tool('c', { managedByAdmin: true }), tool('d')];
  const own = [tool('q1'), tool('q2', { enabled: false })];

  it('inherits every enabled catalog tool when externalToolIds is null', () => {
    expect(selectTools(catalog, null, []).map((t) => t.id)).toEqual(['a', 'c', 'd']);
  });

  it('takes only selected tools, in catalog order, skipping switched-off and unknown ids', () => {
    expect(selectTools(catalog, ['d', 'b', 'a', 'gone'], []).map((t) => t.id)).toEqual(['a', 'd']);
  });

  it('takes no catalog tool for an empty selection', () => {
    expect(selectTools(catalog, [], own).map((t) => t.id)).toEqual(['q1']);
  });

  it('appends enabled assessment tools and marks the source', () => {
    const tools = selectTools(catalog, ['c'], own);
    expect(tools.map((t) => [t.id, t.source])).toEqual([
      ['c', 'course'],
      ['q1', 'quiz'],
    ]);
    expect(tools[0]).toEqual({ id: 'c', label: 'Tool c', url: 'https://c.example.edu/', resourceRules: [], source: 'course' });
  });
});

describe('resolveEffectiveSettings', () => {
  const courseDefaults = {
    ...emptyCourseDefaults('7'),
    urlRules: [{ match: 'exact' as const, value: 'https://course.example.edu/' }],
    externalTools: [tool('a'), tool('b')],
    startPassword: 'course-start',
    exitPassword: 'course-exit',
  };

  it('uses the course URL policy when the assessment inherits it', () => {
    const assessment = {
      ...defaultAssessmentSettings('7', 'classicquiz_9'),
      urlRules: [{ match: 'exact' as const, value: 'https://own.example.edu/' }],
    };
    expect(resolveEffectiveSettings({ assessment, courseDefaults }).urlRules).toEqual(courseDefaults.urlRules);
    expect(resolveEffectiveSettings({ assessment: { ...assessment, usesCourseDefaults: false }, courseDefaults }).urlRules).toEqual(
      assessment.urlRules,
    );
  });

  it('resolves tools and passwords together', () => {
    const assessment = {
      ...defaultAssessmentSettings('7', 'classicquiz_9'),
      externalToolIds: ['b'],
      quizOnlyTools: [tool('q')],
      exitPasswordOverride: 'own-exit',
    };
    const effective = resolveEffectiveSettings({ assessment, courseDefaults, managedExitPassword: 'managed' });
    expect(effective).toMatchObject({
      courseId: '7',
      contentId: 'classicquiz_9',
      startPassword: { value: 'course-start', source: 'course' },
      exitPassword: { value: 'own-exit', source: 'assessment' },
    });
    expect(effective.tools.map((t) => t.id)).toEqual(['b', 'q']);
    expect(approvedTools(effective)).toEqual([
      { id: 'b', label: 'Tool b', url: 'https://b.example.edu/' },
      { id: 'q', label: 'Tool q', url: 'https://q.example.edu/' },
    ]);
  });

  it('works for a course without saved defaults', () => {
    const effective = resolveEffectiveSettings({
      assessment: defaultAssessmentSettings('7', 'classicquiz_9'),
      courseDefaults: null,
      managedExitPassword: 'managed',
    });
    expect(effective).toEqual({
      courseId: '7',
      contentId: 'classicquiz_9',
      urlRules: [],
      tools: [],
      startPassword: { value: null, source: 'none' },
      exitPassword: { value: 'managed', source: 'managed' },
    });
  });

  it('refuses defaults of another course', () => {
    expect(() =>
      resolveEffectiveSettings({ assessment: defaultAssessmentSettings('7', 'classicquiz_9'), courseDefaults: emptyCourseDefaults('8') }),
    ).toThrow();
  });
});
