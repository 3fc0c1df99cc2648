import type { LmsCourse } from '../../lms/schemas.js';

/** What the connection record keeps of an LMS course, read at connect and refresh time. */
export interface CourseFacts {
  readonly courseId: string;
  readonly name: string;
  readonly courseCode: string;
  readonly termId: string | null;
  readonly termName: string | null;
  /** Concluded in the LMS (its API state `completed`). */
  readonly concluded: boolean;
  /** When the course's term ends, or else the course itself; courses past it count as past. */
  readonly endsAt: Date | null;
}

const MAX_NAME_LENGTH = 500;
const MAX_CODE_LENGTH = 200;
const MAX_TERM_NAME_LENGTH = 200;

function date(value: string | null | undefined): Date | null {
  if (value === null || value === undefined) return null;
  const parsed = new Date(value);
  return Number.isNaN(parsed.getTime()) ? null : parsed;
}

export function courseFacts(course: LmsCourse): CourseFacts {
  return {
    courseId: course.id,
    name: course.name.slice(0, MAX_NAME_LENGTH) || `Course ${course.id}`,
    courseCode: (course.courseCode ?? '').slice(0, MAX_CODE_LENGTH),
    termId: course.termId,
    termName: course.term?.name.slice(0, MAX_TERM_NAME_LENGTH) ?? null,
    concluded: course.workflowState === 'completed' || course.concluded === true,
    endsAt: date(course.term?.endAt) ?? date(course.endAt),
  };
}

/**
 * Whether an LMS course lies in the administrator's root account: its root account is that account (a course directly in
 * the root account may report no root account, its own account then being the root).
 */
export function inRootAccount(course: Pick<LmsCourse, 'accountId' | 'rootAccountId'>, rootAccountId: string): boolean {
  return course.rootAccountId === null ? course.accountId === rootAccountId : course.rootAccountId === rootAccountId;
}
