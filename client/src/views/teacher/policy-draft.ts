import type { RouterInputs } from '../../lib/trpc';
import type { FieldFocus, FormError, Submission } from '../../lib/form-errors';
import { type Assessment, type AssessmentSetting, type AssessmentStatus, type CourseDefaults, type CourseScope } from './model';
import { isBlankTool, newRowId, submitRules, submitTool, type RuleRow, type ToolRow } from '../../lib/policy-rows';
import type { PasswordChoice } from './PasswordFields';

export interface PolicyDraft {
  readonly urlMode: 'course' | 'own';
  readonly ruleRows: readonly RuleRow[];
  /** The rows are the assessment's saved rules (or a starting point the teacher chose), not an unknown list. */
  readonly rulesKnown: boolean;
  readonly toolMode: 'all' | 'selected';
  readonly selectedToolIds: readonly string[];
  readonly quizTools: readonly ToolRow[];
  readonly start: PasswordChoice;
  readonly exit: PasswordChoice;
}

/** The parts of the draft the teacher changed; only those replace what the server stores. */
export type Touched = 'rules' | 'tools' | 'quizTools';

/** What each section of the assessment form edits with: the draft, how to change it, and the last save's refusal. */
export interface PolicySectionProps {
  draft: PolicyDraft;
  onChange: (next: Partial<PolicyDraft>, part?: Touched) => void;
  error: FormError | null;
  focus: FieldFocus;
  /** Drops the refusal shown at any of these fields, once what it was about has changed. */
  withdrawError: (keys: readonly string[]) => void;
}

export type SavedPolicy = Pick<PolicyDraft, 'ruleRows' | 'toolMode' | 'selectedToolIds' | 'quizTools'>;

/**
 * What this page last saved per assessment (content id). The server answers a save without the policy itself and
 * shows a stored policy only as its effect, so reopening an assessment in the same page starts from this instead.
 */
export const savedPolicies = new Map<string, SavedPolicy>();

/**
 * The starting point of the form. The server shows an assessment's policy only as its effect (the status view: hosts
 * and approved tools), so what it does not show is left as it is unless the teacher edits that part.
 */
export function initialDraft(
  setting: AssessmentSetting,
  status: AssessmentStatus,
  catalog: CourseDefaults['externalTools'],
  saved: SavedPolicy | undefined,
): PolicyDraft {
  const passwords = { start: { mode: 'keep' as const, value: '' }, exit: { mode: 'keep' as const, value: '' } };
  if (saved !== undefined) {
    return { urlMode: setting.usesCourseDefaults ? 'course' : 'own', rulesKnown: true, ...saved, ...passwords };
  }
  const catalogIds = new Set(catalog.map((tool) => tool.id));
  const approvedCourseIds = status.externalTools.filter((tool) => catalogIds.has(tool.id)).map((tool) => tool.id);
  const enabledCount = catalog.filter((tool) => tool.enabled).length;
  const quizTools: ToolRow[] = status.externalTools
    .filter((tool) => !catalogIds.has(tool.id))
    .map((tool) => ({
      rowId: newRowId('tool'),
      id: tool.id,
      label: tool.label,
      url: tool.url,
      enabled: true,
      managedByAdmin: false,
      resourceRules: [],
      resourceRulesUnknown: true,
    }));
  return {
    urlMode: setting.usesCourseDefaults ? 'course' : 'own',
    ruleRows: [],
    rulesKnown: false,
    toolMode: approvedCourseIds.length === enabledCount ? 'all' : 'selected',
    selectedToolIds: approvedCourseIds,
    quizTools,
    ...passwords,
  };
}

/** The draft as it stands after a save of it: what it edited is now stored, and passwords are kept as they are. */
export function settledDraft(draft: PolicyDraft, touched: ReadonlySet<Touched>): PolicyDraft {
  return {
    ...draft,
    rulesKnown: draft.rulesKnown || touched.has('rules'),
    start: { mode: 'keep', value: '' },
    exit: { mode: 'keep', value: '' },
  };
}

/** Whether `draft` differs from `saved`, the draft as last loaded or saved: then leaving it would lose something. */
export function hasChanges(draft: PolicyDraft, saved: PolicyDraft): boolean {
  return JSON.stringify(draft) !== JSON.stringify(saved);
}

export type SaveStructuredInput = RouterInputs['instructor']['policy']['saveStructured'];

/**
 * The save request for `draft`, and what it sent for locating a refusal. A part the server only shows as its effect
 * (the URL rules, the tool selection, the assessment's own tools) is sent only when the page knows it or the teacher
 * changed it, so saving one part never replaces another with a guess.
 */
export function saveInput(
  draft: PolicyDraft,
  touched: ReadonlySet<Touched>,
  scope: CourseScope,
  assessment: Assessment,
): { input: SaveStructuredInput; submission: Submission } {
  const input: SaveStructuredInput = {
    userId: scope.lmsUserId,
    ...(assessment.contentType === 'NEW_QUIZ' ? { contentId: assessment.id } : { quizId: assessment.id }),
    usesCourseDefaults: draft.urlMode === 'course',
  };
  const submission: { -readonly [K in keyof Submission]: Submission[K] } = {};
  if (draft.urlMode === 'own' && (draft.rulesKnown || touched.has('rules'))) {
    const { rules, rowIds } = submitRules(draft.ruleRows);
    input.urlRules = rules;
    submission.urlRules = rowIds;
  }
  if (touched.has('tools')) input.externalToolIds = draft.toolMode === 'all' ? null : [...draft.selectedToolIds];
  if (touched.has('quizTools')) {
    const tools = draft.quizTools.filter((tool) => !isBlankTool(tool)).map(submitTool);
    input.quizOnlyExternalTools = tools.map((tool) => tool.tool);
    submission.toolLists = { quizOnlyExternalTools: tools };
  }
  if (draft.start.mode !== 'keep') {
    input.startPasswordOverride = draft.start.mode === 'own';
    if (draft.start.mode === 'own') input.startPassword = draft.start.value === '' ? null : draft.start.value;
  }
  if (draft.exit.mode !== 'keep') {
    input.quitPasswordOverride = draft.exit.mode === 'own';
    if (draft.exit.mode === 'own') input.quitPassword = draft.exit.value === '' ? null : draft.exit.value;
  }
  return { input, submission };
}
