import { notAuthorized } from '../authorization.js';
import type { LmsRuntime } from '../context.js';
import { apiErrors } from '../errors.js';
import { canReadCourse } from '../permissions.js';
import type { Account, Course } from '../state.js';

/** Path ids are numbers; anything else addresses nothing. */
export function numericId(value: string | undefined): number | undefined {
  return value !== undefined && /^\d+$/.test(value) ? Number(value) : undefined;
}

/** The course of `:course_id`: 404 when missing, "not authorized" when the caller cannot read it. */
export function readableCourse(lms: LmsRuntime, userId: number, courseIdParam: string | undefined): Course {
  const courseId = numericId(courseIdParam);
  const course = courseId === undefined ? undefined : lms.state.courses.get(courseId);
  if (!course || course.deleted) throw apiErrors.notFound();
  if (!canReadCourse(lms.state, userId, course.id)) throw notAuthorized(lms);
  return course;
}

/** `:account_id` / `:id` of an account route; `self` is the domain's root account. */
export function accountParam(lms: LmsRuntime, value: string | undefined): Account {
  const account =
    value === 'self' ? lms.state.rootAccount() : (() => {
      const id = numericId(value);
      return id === undefined ? undefined : lms.state.accounts.get(id);
    })();
  if (!account) throw apiErrors.notFound();
  return account;
}
