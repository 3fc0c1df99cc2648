import type { AuditLog } from '../../audit/audit-log.js';
import { ActivityCounters, type AssessmentActivity } from './activity-counters.js';
import { entryView, type AuditEntryView } from './audit-views.js';

/** How many recent changes the teacher's Activity panel lists. */
export const RECENT_CHANGES = 20;

export interface AssessmentActivityView {
  readonly changes: AuditEntryView[];
  readonly counters: AssessmentActivity;
}

/** One assessment's Activity panel: its recent changes from the audit trail and its exam-day counters. */
export class AssessmentActivityService {
  constructor(
    private readonly audit: AuditLog,
    private readonly counters: ActivityCounters,
  ) {}

  async view(courseId: string, contentId: string): Promise<AssessmentActivityView> {
    const [entries, counters] = await Promise.all([
      this.audit.list({ courseId, contentId, limit: RECENT_CHANGES }),
      this.counters.read(courseId, contentId),
    ]);
    return { changes: entries.map(entryView), counters };
  }
}
