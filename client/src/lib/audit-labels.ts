/**
 * The audit trail's actions and outcomes in the words the teacher and administrator views use. An action the client
 * does not know yet (added on the server later) shows its own name.
 */
export const AUDIT_ACTION_LABEL: Record<string, string> = {
  'enforcement.enable': 'Exam browser required',
  'enforcement.disable': 'Exam browser no longer required',
  'enforcement.regenerate-code': 'Access code replaced',
  'policy.save': 'Exam settings saved',
  'policy.reset-defaults': 'Reset to the course defaults',
  'course-defaults.save': 'Course defaults saved',
  'password.reveal': 'Passwords shown',
  'password.rotate': 'Exit password replaced',
  'exam-tool.copy': 'Exam tool copied to other courses',
  'tool-preset.create': 'School tool preset created',
  'tool-preset.update': 'School tool preset changed',
  'tool-preset.delete': 'School tool preset deleted',
  'tool-preset.assign': 'School tool preset assigned',
  'tool-preset.rollout': 'School tool preset rolled out',
  'tool-preset.reconcile': 'School tool preset rollout continued',
};

export function auditActionLabel(action: string): string {
  return AUDIT_ACTION_LABEL[action] ?? action;
}

export const AUDIT_OUTCOME_LABEL: Record<string, string> = {
  success: 'Done',
  refused: 'Refused',
  failed: 'Failed',
  'rolled-back': 'Rolled back',
  'verify-required': 'Check in the LMS',
};

const ROLE_LABEL: Record<string, string> = { instructor: 'teacher', admin: 'administrator', student: 'student', system: 'the service' };

/** "Ada Lovelace (teacher, LMS user 2)"; the name is from the signed launch and may be missing. */
export function auditActorLabel(actor: { lmsUserId: string | null; name: string | null; role: string }): string {
  const role = ROLE_LABEL[actor.role] ?? actor.role;
  const who = actor.name ?? (actor.lmsUserId !== null ? `LMS user ${actor.lmsUserId}` : 'Unknown');
  return actor.name !== null && actor.lmsUserId !== null ? `${who} (${role}, LMS user ${actor.lmsUserId})` : `${who} (${role})`;
}

/** Which fields a save changed, when the entry says. */
export function auditFieldsLabel(details: Record<string, unknown>): string | null {
  const fields = details.fields;
  if (!Array.isArray(fields)) return null;
  return fields.length === 0 ? 'nothing changed' : `changed: ${fields.join(', ')}`;
}

export function formatTime(iso: string): string {
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
}
