/**
 * Every action the service writes to the audit trail (`area.verb`). The writer accepts only these, and each has a
 * label in every language under `teacher:audit.action.<auditActionKey>` (a test holds the two together), so the
 * trail never shows a bare action name.
 */
export const AUDIT_ACTIONS = [
  'enforcement.enable',
  'enforcement.disable',
  'enforcement.regenerate-code',
  'enforcement.reapply-protection',
  'enforcement.accept-lms-code',
  'enforcement.clear-lms-code',
  'enforcement.pre-exam-repair',
  'enforcement.adopt-original',
  'policy.save',
  'policy.reset-defaults',
  'course-defaults.save',
  'password.reveal',
  'password.rotate',
  'exam-tool.copy',
  'url-rule.rewrite',
  'tool-preset.create',
  'tool-preset.update',
  'tool-preset.delete',
  'tool-preset.assign',
  'tool-preset.rollout',
  'tool-preset.reconcile',
  'course.reset',
  'exam-day.readmit',
  'exam-day.exempt',
  'exam-day.exemption-use',
  'exam-day.code-sheet',
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export function isAuditAction(value: string): value is AuditAction {
  return (AUDIT_ACTIONS as readonly string[]).includes(value);
}

/** The catalogue key of an action's label: `enforcement.reapply-protection` → `enforcementReapplyProtection`. */
export function auditActionKey(action: AuditAction): string {
  return action.replace(/[.-]([a-z])/g, (_, letter: string) => letter.toUpperCase());
}
