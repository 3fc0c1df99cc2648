import { describe, expect, it } from 'vitest';
import { AUDIT_ACTIONS, auditActionKey } from '../src/audit-actions.js';
import de from '../src/i18n/locales/de/teacher.json' with { type: 'json' };
import en from '../src/i18n/locales/en/teacher.json' with { type: 'json' };

describe('the audit trail’s action labels', () => {
  it.each([
    ['en', en],
    ['de', de],
  ])('label every action the service can write, in %s', (_, catalogue) => {
    const labels = catalogue.audit.action as Record<string, string>;
    const missing = AUDIT_ACTIONS.filter((action) => typeof labels[auditActionKey(action)] !== 'string' || labels[auditActionKey(action)]!.trim() === '');
    expect(missing).toEqual([]);
  });

  it('names each action’s label by its own key', () => {
    expect(auditActionKey('enforcement.reapply-protection')).toBe('enforcementReapplyProtection');
    expect(new Set(AUDIT_ACTIONS.map(auditActionKey)).size).toBe(AUDIT_ACTIONS.length);
  });
});
