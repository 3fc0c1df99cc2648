import type { MikroORM } from '@mikro-orm/postgresql';
import { ErrorCodes } from '@exb/shared/error-codes.js';
import { EXEMPTION_TTL_SECONDS, type ExemptionGranted, type ExemptionOffer } from '@exb/shared/exam-day-help.js';
import type { AuditLog } from '../../audit/audit-log.js';
import { audited, type AuditedBy } from '../../audit/audited.js';
import type { Clock } from '../../clock.js';
import { DomainError } from '../../domain-error.js';
import type { CoursePrincipal } from '../../identity/principal.js';
import type { AssessmentRef } from '../assessments/scope.js';
import { isEnforced } from '../enforcement/access-code-verification.js';
import { SETTING_MAY_RELEASE_CODE } from '../settings/settings-codec.js';
import type { SettingsRepository } from '../settings/settings-repository.js';

/**
 * The exemption from the exam browser (`exb_exam_day_exemption`, whose home this is): a course's instructor or a root
 * administrator lets one named student get one enforced assessment's access code once, on the student's own tool page
 * in an ordinary browser, within {@link EXEMPTION_TTL_SECONDS}. The row names the student by the LMS user id the
 * student's own session proves, so nobody else can use it; it holds no code and no token.
 *
 * The release is one conditional UPDATE (unused, unexpired, the assessment still enforced with a code), which in the
 * same statement records the release and the exemption on the student's exam-day row (`exb_exam_day_student`,
 * inserted when missing): of any number of parallel requests exactly one gets the code. Granting and using are both
 * audited; the code is in neither entry, nor in any log line.
 */

/** How long a used or lapsed exemption stays on the student's page, saying so. */
const OFFER_SHOWN_FOR_MS = 86_400_000;

export function exemptionUnavailable(): DomainError {
  return new DomainError(ErrorCodes.EXAM_DAY_EXEMPTION_UNAVAILABLE, 'No unused exemption from the exam browser is waiting for you. Ask your teacher.');
}

function notEnforced(): DomainError {
  return new DomainError(ErrorCodes.EXB_NOT_ENABLED, 'The exam browser is not required for this assessment, so there is nothing to exempt from.');
}

export interface ExemptionDependencies {
  readonly orm: MikroORM;
  readonly settings: SettingsRepository;
  readonly audit: AuditLog;
  readonly clock: Clock;
}

export class ExamDayExemptions {
  constructor(private readonly deps: ExemptionDependencies) {}

  private get connection() {
    return this.deps.orm.em.getConnection();
  }

  /**
   * Grants (or grants anew, replacing an earlier one) the exemption of `lmsUserId` for an enforced assessment. The
   * caller has checked who may (the course's confirmed instructor, or a root administrator of a connected course).
   */
  grant(by: AuditedBy, ref: AssessmentRef, lmsUserId: string, reason: string): Promise<ExemptionGranted> {
    const { courseId, contentId } = ref;
    return audited(
      this.deps.audit,
      by,
      { action: 'exam-day.exempt', courseId, contentId, details: { studentLmsUserId: lmsUserId, reason } },
      async () => {
        const setting = await this.deps.settings.loadAssessmentSettings(courseId, contentId);
        if (setting === null || !isEnforced(setting) || setting.accessCode === null) throw notEnforced();
        const now = this.deps.clock();
        const expiresAt = new Date(now + EXEMPTION_TTL_SECONDS * 1000);
        await this.connection.execute(
          `insert into exb_exam_day_exemption
             (course_id, content_id, lms_user_id, granted_by_lms_user_id, granted_by_role, granted_at, expires_at, used_at)
           values (?, ?, ?, ?, ?, ?, ?, null)
           on conflict (course_id, content_id, lms_user_id) do update set
             granted_by_lms_user_id = excluded.granted_by_lms_user_id, granted_by_role = excluded.granted_by_role,
             granted_at = excluded.granted_at, expires_at = excluded.expires_at, used_at = null`,
          [courseId, contentId, lmsUserId, by.principal.lmsUserId, by.principal.kind, new Date(now), expiresAt],
          'run',
        );
        return {
          success: true as const,
          courseId,
          assessmentId: contentId,
          lmsUserId,
          expiresAt: expiresAt.toISOString(),
          expiresInSeconds: EXEMPTION_TTL_SECONDS,
        };
      },
      (granted) => ({ expiresAt: granted.expiresAt }),
    );
  }

  /** The exemptions granted to this student in their course lately, for their page: waiting, used or lapsed. */
  async offers(principal: Pick<CoursePrincipal, 'courseId' | 'lmsUserId'>): Promise<ExemptionOffer[]> {
    const now = this.deps.clock();
    const rows = await this.connection.execute<{ content_id: string; title: string | null; expires_at: Date; used_at: Date | null }[]>(
      `select e.content_id, a.title, e.expires_at, e.used_at
         from exb_exam_day_exemption e
         left join assessment a on a.course_id = e.course_id and a.content_id = e.content_id
        where e.course_id = ? and e.lms_user_id = ? and e.granted_at > ?
        order by e.granted_at desc
        limit 20`,
      [principal.courseId, principal.lmsUserId, new Date(now - OFFER_SHOWN_FOR_MS)],
    );
    return rows.map((row) => ({
      contentId: row.content_id,
      title: row.title ?? '',
      expiresAt: new Date(row.expires_at).toISOString(),
      usedAt: row.used_at === null ? null : new Date(row.used_at).toISOString(),
    }));
  }

  /**
   * Releases the access code to the student the exemption names, once. A student without a waiting exemption is
   * refused before anything is entered in the trail (a page reloaded after the use asks nothing of the audit); a
   * waiting one is used inside an audited attempt, so the trail shows each use and the race's losers.
   */
  async release(by: AuditedBy & { readonly principal: CoursePrincipal }, contentId: string): Promise<{ accessCode: string }> {
    const { courseId, lmsUserId } = by.principal;
    if (!(await this.waiting(courseId, contentId, lmsUserId))) throw exemptionUnavailable();
    return audited(this.deps.audit, by, { action: 'exam-day.exemption-use', courseId, contentId }, async () => {
      if (!(await this.use(courseId, contentId, lmsUserId))) throw exemptionUnavailable();
      // The statement saw the setting enforced with a code; read it now. A setting changed in between gives the current
      // code, which is what the LMS asks for; one switched off in between leaves nothing to release.
      const setting = await this.deps.settings.loadAssessmentSettings(courseId, contentId);
      if (setting === null || !isEnforced(setting) || setting.accessCode === null) throw exemptionUnavailable();
      return { accessCode: setting.accessCode };
    });
  }

  private async waiting(courseId: string, contentId: string, lmsUserId: string): Promise<boolean> {
    const rows = await this.connection.execute<{ one: number }[]>(
      `select 1 as one from exb_exam_day_exemption
        where course_id = ? and content_id = ? and lms_user_id = ? and used_at is null and expires_at > ?`,
      [courseId, contentId, lmsUserId, new Date(this.deps.clock())],
    );
    return rows.length > 0;
  }

  /**
   * The one conditional UPDATE that spends the exemption, and in the same statement the student's exam-day row: the
   * code counts as released to them, by exemption.
   */
  private async use(courseId: string, contentId: string, lmsUserId: string): Promise<boolean> {
    const now = new Date(this.deps.clock());
    const rows = await this.connection.execute<{ used: boolean }[]>(
      `with used as (
          update exb_exam_day_exemption e set used_at = ?
           where e.course_id = ? and e.content_id = ? and e.lms_user_id = ? and e.used_at is null and e.expires_at > ?
             and exists (select 1 from assessment_setting s where s.course_id = e.course_id and s.content_id = e.content_id
               and ${SETTING_MAY_RELEASE_CODE})
          returning e.course_id, e.content_id, e.lms_user_id
        ),
        recorded as (
          insert into exb_exam_day_student (course_id, content_id, lms_user_id, released_at, exempted_at, updated_at)
          select course_id, content_id, lms_user_id, ?, ?, ? from used
          on conflict (course_id, content_id, lms_user_id) do update set
            released_at = excluded.released_at, exempted_at = excluded.exempted_at, updated_at = excluded.updated_at
          returning 1
        )
        select exists (select 1 from used) as used`,
      [now, courseId, contentId, lmsUserId, now, now, now, now],
    );
    return rows[0]?.used === true;
  }

  /** Deletes exemptions the student's page no longer shows (used or lapsed a day ago); housekeeping calls it. */
  async purgeExpired(): Promise<number> {
    const result = await this.connection.execute<{ affectedRows?: number }>(
      'delete from exb_exam_day_exemption where expires_at < ?',
      [new Date(this.deps.clock() - OFFER_SHOWN_FOR_MS)],
      'run',
    );
    return result.affectedRows ?? 0;
  }
}
