import type { AuditLog } from '../../audit/audit-log.js';
import { audited, type AuditedBy } from '../../audit/audited.js';
import type { SweepRecords } from './sweep-records.js';

/**
 * A course's choice to have the pre-exam sweep repair drift on its own (`autoRepairBeforeStart`). It sits beside the
 * course defaults in the views but is no part of the exam-browser policy: it changes no configuration and no Config
 * Key. Off until a teacher of the course or an administrator switches it on; each change is in the trail as a change
 * of the course defaults naming this field.
 */
export class AutoRepairOption {
  constructor(
    private readonly records: SweepRecords,
    private readonly audit: AuditLog,
  ) {}

  get(courseId: string): Promise<boolean> {
    return this.records.autoRepair(courseId);
  }

  async set(by: AuditedBy, courseId: string, enabled: boolean): Promise<boolean> {
    await audited(this.audit, by, { action: 'course-defaults.save', courseId, details: { autoRepairBeforeStart: enabled } }, () =>
      this.records.setAutoRepair(courseId, enabled),
      () => ({ fields: ['autoRepairBeforeStart'] }),
    );
    return enabled;
  }
}
