import { describe, expect, it } from 'vitest';
import { hasChanges, initialDraft, saveInput, settledDraft, type PolicyDraft, type Touched } from '../src/views/teacher/policy-draft';
import type { Assessment, AssessmentSetting, AssessmentStatus, CourseDefaults, CourseScope } from '../src/views/teacher/model';
import type { RuleRow, ToolRow } from '../src/lib/policy-rows';

const setting = (usesCourseDefaults: boolean): AssessmentSetting => ({ exbRequired: true, enabled: true, hasAccessCode: true, usesCourseDefaults });

type CatalogTool = CourseDefaults['externalTools'][number];
const catalogTool = (id: string, enabled: boolean): CatalogTool =>
  ({ id, label: id, url: `https://${id}.example/`, enabled, managedByAdmin: false, resourceRules: [] }) as CatalogTool;
const statusWith = (toolIds: readonly string[]) =>
  ({ externalTools: toolIds.map((id) => ({ id, label: `Tool ${id}`, url: `https://${id}.example/` })) }) as unknown as AssessmentStatus;

const scope: CourseScope = { courseId: '101', lmsUserId: '7', courseName: 'Biology' };
const classic = { id: '201', contentType: 'CLASSIC_QUIZ' } as Assessment;
const newQuiz = { id: '301', contentType: 'NEW_QUIZ' } as Assessment;

const rule = (rowId: string, value: string, match: RuleRow['match'] = 'exact'): RuleRow => ({ rowId, match, value, broadDomainConfirmed: false });
const tool = (rowId: string, label: string, url: string): ToolRow => ({ rowId, label, url, enabled: true, managedByAdmin: false, resourceRules: [] });

const draft = (changes: Partial<PolicyDraft> = {}): PolicyDraft => ({
  urlMode: 'own',
  ruleRows: [],
  rulesKnown: true,
  toolMode: 'all',
  selectedToolIds: [],
  quizTools: [],
  start: { mode: 'keep', value: '' },
  exit: { mode: 'keep', value: '' },
  ...changes,
});
const touched = (...parts: Touched[]) => new Set<Touched>(parts);

describe('initialDraft', () => {
  const catalog = [catalogTool('a', true), catalogTool('b', true), catalogTool('c', false)];

  it('starts from what this page saved last, with passwords kept and rules known', () => {
    const saved = { ruleRows: [rule('r1', 'https://a.example/')], toolMode: 'selected' as const, selectedToolIds: ['a'], quizTools: [] };
    const started = initialDraft(setting(false), statusWith(['a', 'b']), catalog, saved);
    expect(started).toEqual({ urlMode: 'own', rulesKnown: true, ...saved, start: { mode: 'keep', value: '' }, exit: { mode: 'keep', value: '' } });
  });

  it('reads the tool selection from the approved tools: every enabled catalogue tool approved is "all"', () => {
    const started = initialDraft(setting(true), statusWith(['a', 'b']), catalog, undefined);
    expect(started).toMatchObject({ urlMode: 'course', toolMode: 'all', selectedToolIds: ['a', 'b'], ruleRows: [], rulesKnown: false, quizTools: [] });
  });

  it('is "selected" when fewer catalogue tools are approved than are enabled', () => {
    expect(initialDraft(setting(true), statusWith(['b']), catalog, undefined)).toMatchObject({ toolMode: 'selected', selectedToolIds: ['b'] });
    expect(initialDraft(setting(true), statusWith([]), catalog, undefined)).toMatchObject({ toolMode: 'selected', selectedToolIds: [] });
  });

  it("takes approved tools outside the catalogue as the assessment's own, whose extra websites are not known", () => {
    const started = initialDraft(setting(false), statusWith(['a', 'own']), catalog, undefined);
    expect(started.selectedToolIds).toEqual(['a']);
    expect(started.quizTools).toHaveLength(1);
    expect(started.quizTools[0]).toMatchObject({ id: 'own', label: 'Tool own', url: 'https://own.example/', enabled: true, managedByAdmin: false, resourceRulesUnknown: true });
  });

  it('with an empty catalogue and nothing approved, counts as "all" (there is nothing to leave out)', () => {
    expect(initialDraft(setting(true), statusWith([]), [], undefined)).toMatchObject({ toolMode: 'all', selectedToolIds: [] });
  });
});

describe('settledDraft', () => {
  it('keeps the passwords as stored and knows the rules once they were saved', () => {
    const before = draft({ rulesKnown: false, start: { mode: 'own', value: 'secret' }, exit: { mode: 'course', value: '' } });
    const after = settledDraft(before, touched('rules'));
    expect(after).toEqual({ ...before, rulesKnown: true, start: { mode: 'keep', value: '' }, exit: { mode: 'keep', value: '' } });
    expect(before.start).toEqual({ mode: 'own', value: 'secret' });
  });

  it('leaves rules unknown when the save did not send them', () => {
    expect(settledDraft(draft({ rulesKnown: false }), touched('tools')).rulesKnown).toBe(false);
  });
});

describe('hasChanges', () => {
  it('is false for an equal draft and true for any change, a typed password included', () => {
    expect(hasChanges(draft(), draft())).toBe(false);
    expect(hasChanges(draft({ start: { mode: 'own', value: 'x' } }), draft())).toBe(true);
    expect(hasChanges(draft({ selectedToolIds: ['a'] }), draft())).toBe(true);
  });
});

describe('saveInput', () => {
  it('names a classic quiz by its quiz id and a new quiz by its content id', () => {
    expect(saveInput(draft({ urlMode: 'course' }), touched(), scope, classic).input).toEqual({ userId: '7', quizId: '201', usesCourseDefaults: true });
    expect(saveInput(draft({ urlMode: 'course' }), touched(), scope, newQuiz).input).toEqual({ userId: '7', contentId: '301', usesCourseDefaults: true });
  });

  it('sends own rules without the blank rows, and remembers which row each submitted rule came from', () => {
    const rows = [rule('r1', ' https://a.example/x '), rule('r2', '   '), rule('r3', 'https://b.example/path?q=1', 'domain')];
    const { input, submission } = saveInput(draft({ ruleRows: rows }), touched(), scope, classic);
    expect(input.urlRules).toEqual([
      { match: 'exact', value: 'https://a.example/x' },
      { match: 'domain', value: 'b.example', broadDomainConfirmed: false },
    ]);
    expect(submission.urlRules).toEqual(['r1', 'r3']);
  });

  it('never replaces rules it does not know with a guess, unless the teacher edited them', () => {
    const unknown = draft({ rulesKnown: false, ruleRows: [] });
    expect(saveInput(unknown, touched(), scope, classic).input).not.toHaveProperty('urlRules');
    expect(saveInput(unknown, touched('rules'), scope, classic).input.urlRules).toEqual([]);
    // Course rules in force: the assessment's own rules are not sent at all.
    expect(saveInput(draft({ urlMode: 'course', ruleRows: [rule('r1', 'https://a.example/')] }), touched('rules'), scope, classic).input).not.toHaveProperty('urlRules');
  });

  it('sends the tool selection only when it was changed: null for all, the ids otherwise', () => {
    expect(saveInput(draft({ toolMode: 'all', selectedToolIds: ['a'] }), touched(), scope, classic).input).not.toHaveProperty('externalToolIds');
    expect(saveInput(draft({ toolMode: 'all', selectedToolIds: ['a'] }), touched('tools'), scope, classic).input.externalToolIds).toBeNull();
    expect(saveInput(draft({ toolMode: 'selected', selectedToolIds: ['a', 'b'] }), touched('tools'), scope, classic).input.externalToolIds).toEqual(['a', 'b']);
  });

  it("sends the assessment's own tools only when changed, leaving out blank rows and keeping half-filled ones", () => {
    const rows = [tool('t1', ' Calculator ', ' https://calc.example/ '), tool('t2', '', '  '), tool('t3', '', 'https://half.example/')];
    expect(saveInput(draft({ quizTools: rows }), touched(), scope, classic).input).not.toHaveProperty('quizOnlyExternalTools');
    const { input, submission } = saveInput(draft({ quizTools: rows }), touched('quizTools'), scope, classic);
    expect(input.quizOnlyExternalTools).toEqual([
      { label: 'Calculator', url: 'https://calc.example/', enabled: true, resourceRules: [] },
      { label: '', url: 'https://half.example/', enabled: true, resourceRules: [] },
    ]);
    expect(submission.toolLists?.quizOnlyExternalTools?.map((submitted) => submitted.rowId)).toEqual(['t1', 't3']);
  });

  it('sends passwords by their choice: nothing to keep, the course one, or its own (empty is none)', () => {
    const sent = (start: PolicyDraft['start'], exit: PolicyDraft['exit']) => saveInput(draft({ urlMode: 'course', start, exit }), touched(), scope, classic).input;
    expect(sent({ mode: 'keep', value: 'ignored' }, { mode: 'keep', value: '' })).toEqual({ userId: '7', quizId: '201', usesCourseDefaults: true });
    expect(sent({ mode: 'course', value: 'ignored' }, { mode: 'course', value: '' })).toMatchObject({ startPasswordOverride: false, quitPasswordOverride: false });
    expect(sent({ mode: 'course', value: 'ignored' }, { mode: 'keep', value: '' })).not.toHaveProperty('startPassword');
    expect(sent({ mode: 'own', value: 'open sesame' }, { mode: 'own', value: '' })).toMatchObject({
      startPasswordOverride: true,
      startPassword: 'open sesame',
      quitPasswordOverride: true,
      quitPassword: null,
    });
  });
});
