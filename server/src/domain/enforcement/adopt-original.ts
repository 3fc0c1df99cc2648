import { ErrorCodes } from '@exb/shared/error-codes.js';
import { contentIdMatchesCourse, isContentId, isLmsId } from '@exb/shared/content-id.js';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { AuditedBy } from '../../audit/audited.js';
import type { LmsApi } from '../../lms/api.js';
import { DomainError } from '../../domain-error.js';
import type { AssessmentRef } from '../assessments/scope.js';
import type { SettingsRepository } from '../settings/settings-repository.js';
import { isEnforced } from './access-code-verification.js';
import type { AdoptedPolicy, EnforcementService, SettingView } from './enforcement-service.js';

/**
 * "Adopt with the original assessment's settings" for a quiz a course copy brought along with its access code
 * (`unmanaged-code.ts`). Canvas does not tell an LTI tool reliably which quiz a copy came from: the quiz API carries no
 * `migration_id`, and a course's content migrations name a source course, not a quiz, and need a scope of their own.
 * So the candidates are the enforced assessments with the same title in the other courses this service knows that the
 * user may copy from ({@link CandidateCourses}), and the user picks one: a teacher, among the courses where they are an
 * active teacher in the LMS now (read live, as the exam-tool copy does); the root administrator, among the connected
 * courses of their account.
 *
 * What is taken over is the assessment's own policy: whether it follows the course defaults, its URL rules, its
 * quiz-only tools, its start and exit password overrides, and those of its selected course tools that this course's
 * catalog also holds (course tools are copied between courses by the exam-tool copy, never here). The target gets its
 * own access code, written to the LMS before anything is stored (`EnforcementService.enableWithPolicy`).
 */
export interface AdoptCandidate {
  readonly courseId: string;
  readonly courseName: string;
  readonly contentId: string;
  readonly title: string;
}

/**
 * Which courses the originals may come from: those the user teaches now, read with their grant, or the connected
 * courses of a root account (its administrator, who need not teach any of them).
 */
export type CandidateCourses = { readonly kind: 'taught'; readonly lms: LmsApi } | { readonly kind: 'connected'; readonly accountId: string };

const MAX_CANDIDATES = 20;

export class OriginalAdoption {
  constructor(
    private readonly orm: MikroORM,
    private readonly settings: SettingsRepository,
    private readonly enforcement: EnforcementService,
  ) {}

  async candidates(ref: AssessmentRef, from: CandidateCourses): Promise<AdoptCandidate[]> {
    if (ref.cached === null) return [];
    let scope: { sql: string; param: string };
    let taught: Map<string, string> | null = null;
    if (from.kind === 'taught') {
      taught = await this.teacherCourses(from.lms);
      if (taught.size === 0) return [];
      scope = { sql: 'a.course_id in (select jsonb_array_elements_text(?::jsonb))', param: JSON.stringify([...taught.keys()]) };
    } else {
      scope = { sql: 'a.course_id in (select course_id from admin_course where account_id = ?)', param: from.accountId };
    }
    const rows = await this.orm.em.getConnection().execute<{ course_id: string; content_id: string; title: string; course_name: string | null }[]>(
      `select a.course_id, a.content_id, a.title, c.name as course_name from assessment a
       join assessment_setting s on s.course_id = a.course_id and s.content_id = a.content_id
       left join admin_course c on c.course_id = a.course_id
       where a.title = ? and a.course_id <> ? and ${scope.sql} and s.exb_required and s.enabled
       order by a.course_id, a.content_id limit ?`,
      [ref.cached.title, ref.courseId, scope.param, MAX_CANDIDATES],
    );
    return rows.map((row) => ({
      courseId: row.course_id,
      courseName: taught?.get(row.course_id) ?? row.course_name ?? row.course_id,
      contentId: row.content_id,
      title: row.title,
    }));
  }

  /** Adopts with `source`'s policy, which must be one of the candidates `from` offers; `lms` writes the new code. */
  async adopt(by: AuditedBy, ref: AssessmentRef, source: { courseId: string; contentId: string }, from: CandidateCourses, lms: LmsApi): Promise<SettingView> {
    const candidate = (await this.candidates(ref, from)).find((item) => item.courseId === source.courseId && item.contentId === source.contentId);
    if (candidate === undefined || !isLmsId(source.courseId) || !isContentId(source.contentId) || !contentIdMatchesCourse(source.contentId, source.courseId)) {
      const where = from.kind === 'taught' ? 'a course you teach' : 'a connected course of your account';
      throw new DomainError(ErrorCodes.ASSESSMENT_NOT_FOUND, `No enforced assessment of that title in ${where}.`);
    }
    const original = await this.settings.loadAssessmentSettings(source.courseId, source.contentId);
    if (original === null || !isEnforced(original)) throw new DomainError(ErrorCodes.ASSESSMENT_NOT_FOUND, 'The original assessment is no longer enforced.');
    const catalog = new Set(((await this.settings.loadCourseDefaults(ref.courseId))?.externalTools ?? []).map((tool) => tool.id));
    const policy: AdoptedPolicy = {
      usesCourseDefaults: original.usesCourseDefaults,
      urlRules: original.urlRules,
      externalToolIds: original.externalToolIds === null ? null : original.externalToolIds.filter((id) => catalog.has(id)),
      quizOnlyTools: original.quizOnlyTools,
      startPasswordOverride: original.startPasswordOverride,
      exitPasswordOverride: original.exitPasswordOverride,
    };
    return this.enforcement.enableWithPolicy(by, ref, lms, policy, { sourceCourseId: source.courseId, sourceContentId: source.contentId });
  }

  private async teacherCourses(lms: LmsApi): Promise<Map<string, string>> {
    const courses = await lms.listCourses({ enrollmentType: 'teacher', enrollmentState: 'active' });
    return new Map(courses.map((course) => [course.id, course.name]));
  }
}
