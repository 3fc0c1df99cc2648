import { i18next } from '../i18n/i18n';

/**
 * The audit trail's actions and outcomes in the words the teacher and administrator views use, in the page's language
 * (`teacher:audit`). An action the client does not know yet (added on the server later) shows its own name.
 */
const ACTION_KEYS = {
  'enforcement.enable': 'teacher:audit.action.enforcementEnable',
  'enforcement.disable': 'teacher:audit.action.enforcementDisable',
  'enforcement.regenerate-code': 'teacher:audit.action.enforcementRegenerateCode',
  'policy.save': 'teacher:audit.action.policySave',
  'policy.reset-defaults': 'teacher:audit.action.policyResetDefaults',
  'course-defaults.save': 'teacher:audit.action.courseDefaultsSave',
  'password.reveal': 'teacher:audit.action.passwordReveal',
  'password.rotate': 'teacher:audit.action.passwordRotate',
  'exam-tool.copy': 'teacher:audit.action.examToolCopy',
  'url-rule.rewrite': 'teacher:audit.action.urlRuleRewrite',
  'tool-preset.create': 'teacher:audit.action.toolPresetCreate',
  'tool-preset.update': 'teacher:audit.action.toolPresetUpdate',
  'tool-preset.delete': 'teacher:audit.action.toolPresetDelete',
  'tool-preset.assign': 'teacher:audit.action.toolPresetAssign',
  'tool-preset.rollout': 'teacher:audit.action.toolPresetRollout',
  'tool-preset.reconcile': 'teacher:audit.action.toolPresetReconcile',
} as const;

const OUTCOME_KEYS = {
  pending: 'teacher:audit.outcome.pending',
  success: 'teacher:audit.outcome.success',
  refused: 'teacher:audit.outcome.refused',
  failed: 'teacher:audit.outcome.failed',
  'rolled-back': 'teacher:audit.outcome.rolled-back',
  'verify-required': 'teacher:audit.outcome.verify-required',
  started: 'teacher:audit.outcome.started',
  recovered: 'teacher:audit.outcome.recovered',
  compensated: 'teacher:audit.outcome.compensated',
} as const;

const ROLE_KEYS = {
  instructor: 'teacher:audit.role.instructor',
  admin: 'teacher:audit.role.admin',
  student: 'teacher:audit.role.student',
  system: 'teacher:audit.role.system',
} as const;

function has<K extends string>(keys: Record<K, unknown>, value: string): value is K {
  return Object.prototype.hasOwnProperty.call(keys, value);
}

/** Labels by name, each read when it is used, so it is in the language the page started with. */
function labels(names: readonly string[], label: (name: string) => string): Record<string, string> {
  const result: Record<string, string> = {};
  for (const name of names) Object.defineProperty(result, name, { enumerable: true, get: () => label(name) });
  return result;
}

export function auditActionLabel(action: string): string {
  return has(ACTION_KEYS, action) ? i18next.t(ACTION_KEYS[action]) : action;
}

export function auditOutcomeLabel(outcome: string): string {
  return has(OUTCOME_KEYS, outcome) ? i18next.t(OUTCOME_KEYS[outcome]) : outcome;
}

export const AUDIT_ACTION_LABEL: Record<string, string> = labels(Object.keys(ACTION_KEYS), auditActionLabel);

export const AUDIT_OUTCOME_LABEL: Record<string, string> = labels(Object.keys(OUTCOME_KEYS), auditOutcomeLabel);

/** "Ada Lovelace (teacher, LMS user 2)"; the name is from the signed launch and may be missing. */
export function auditActorLabel(actor: { lmsUserId: string | null; name: string | null; role: string }): string {
  const role = has(ROLE_KEYS, actor.role) ? i18next.t(ROLE_KEYS[actor.role]) : actor.role;
  if (actor.name !== null && actor.lmsUserId !== null) {
    return i18next.t('teacher:audit.actorWithId', { who: actor.name, role, id: actor.lmsUserId });
  }
  const who =
    actor.name ?? (actor.lmsUserId !== null ? i18next.t('teacher:audit.lmsUser', { id: actor.lmsUserId }) : i18next.t('teacher:audit.unknownActor'));
  return i18next.t('teacher:audit.actor', { who, role });
}

/** Which fields a save changed, when the entry says; the fields keep their names in the stored data. */
export function auditFieldsLabel(details: Record<string, unknown>): string | null {
  const fields = details.fields;
  if (!Array.isArray(fields)) return null;
  return fields.length === 0 ? i18next.t('teacher:audit.nothingChanged') : i18next.t('teacher:audit.changed', { fields: fields.join(', ') });
}

/** A moment in the page's language, as dates and times are written there. */
export function formatTime(iso: string): string {
  return new Date(iso).toLocaleString(i18next.language, { dateStyle: 'medium', timeStyle: 'medium' });
}
