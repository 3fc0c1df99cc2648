import type { CodeSheet, CodeSheetLine } from '@exb/shared/exam-day-help.js';
import type { AuditLog } from '../../audit/audit-log.js';
import { audited, type AuditedBy } from '../../audit/audited.js';
import type { Clock } from '../../clock.js';
import type { AssessmentRef } from '../assessments/scope.js';
import { isEnforced } from '../enforcement/access-code-verification.js';
import type { SettingsRepository } from '../settings/settings-repository.js';

/** One assessment to print, with the name of its course as the sheet shows it. */
export interface CodeSheetItem {
  readonly ref: AssessmentRef;
  readonly courseName: string;
}

/**
 * The code sheet for an outage: the access codes the service releases now for the chosen assessments, read from the
 * stored settings (the codes exam browsers receive), for a root administrator to print when the service or the
 * network fails. One audit entry per sheet names the assessments and the reason; the codes are in no entry and no log.
 */
export class CodeSheetService {
  constructor(
    private readonly settings: SettingsRepository,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
  ) {}

  print(by: AuditedBy, items: readonly CodeSheetItem[], reason: string): Promise<CodeSheet> {
    const courses = [...new Set(items.map((item) => item.ref.courseId))];
    const assessments = items.map((item) => `${item.ref.courseId}/${item.ref.contentId}`);
    return audited(
      this.audit,
      by,
      {
        action: 'exam-day.code-sheet',
        // A sheet of one course belongs to that course's trail; a sheet across courses to the account's.
        courseId: courses.length === 1 ? courses[0]! : null,
        contentId: items.length === 1 ? items[0]!.ref.contentId : null,
        details: { reason, assessments },
      },
      async () => ({
        success: true as const,
        generatedAt: new Date(this.clock()).toISOString(),
        lines: await Promise.all(items.map((item) => this.line(item))),
      }),
      (sheet) => ({ printed: sheet.lines.filter((line) => line.accessCode !== null).length }),
    );
  }

  private async line({ ref, courseName }: CodeSheetItem): Promise<CodeSheetLine> {
    const setting = await this.settings.loadAssessmentSettings(ref.courseId, ref.contentId);
    const accessCode = setting !== null && isEnforced(setting) ? setting.accessCode : null;
    return { courseId: ref.courseId, courseName, assessmentId: ref.contentId, title: ref.cached?.title ?? ref.contentId, accessCode };
  }
}
