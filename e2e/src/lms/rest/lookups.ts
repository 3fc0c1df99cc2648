import { notAuthorized } from '../authorization.js';
import type { LmsRuntime } from '../runtime.js';
import { apiErrors } from '../errors.js';
import { canReadCourse } from '../permissions.js';
import type { Account, Course } from '../state.js';

/** Path ids are numbers; anything else addresses nothing. */
export function numericId(value: string | undefined): number | undefined {
  return value !== undefined && /^\d+$/.test(value) ? Number(value) : undefined;
}

/**
 * Finds a record by an API id as the LMS reads one: a number, or `lti_context_id:<40-hex>` / `uuid:<uuid>`. The
 * prefixed forms look only within the LMS's own root account, so another school's context id addresses nothing
 * (canvas-lms `lib/api.rb`, `SIS_MAPPINGS["courses"]`: the `lti_context_id` and `uuid` lookups are scoped by
 * `root_account_id`, only a bare `id` is not). Whether the caller may then read the record is the course's own
 * permission check ({@link readableCourse}), which an administrator of the course's account passes like a member
 * (`app/models/course.rb`, `account_membership_allows`): the service proves courses through administrators that way.
 */
function findByApiId<T extends { id: number; ltiContextId: string; uuid: string }>(
  lms: LmsRuntime,
  records: ReadonlyMap<number, T>,
  value: string | undefined,
  accountOf: (record: T) => number,
): T | undefined {
  if (value === undefined) return undefined;
  const id = numericId(value);
  if (id !== undefined) return records.get(id);
  const prefixed = /^(lti_context_id|uuid):(.+)$/.exec(value);
  if (!prefixed) return undefined;
  const [, column, key] = prefixed;
  const school = lms.state.accountSubtree(lms.state.rootAccount().id);
  for (const record of records.values()) {
    const matches = column === 'lti_context_id' ? record.ltiContextId === key : record.uuid === key;
    if (matches && school.has(accountOf(record))) return record;
  }
  return undefined;
}

/** The course of `:course_id` / `:id`, 404 when missing; whether the caller may read it is left to the route. */
export function existingCourse(lms: LmsRuntime, courseIdParam: string | undefined): Course {
  const course = findByApiId(lms, lms.state.courses, courseIdParam, (c) => c.accountId);
  if (!course || course.deleted) throw apiErrors.notFound();
  return course;
}

/** The course of `:course_id` / `:id`: 404 when missing, "not authorized" when the caller cannot read it. */
export function readableCourse(lms: LmsRuntime, userId: number, courseIdParam: string | undefined): Course {
  const course = existingCourse(lms, courseIdParam);
  if (!canReadCourse(lms.state, userId, course.id)) throw notAuthorized(lms);
  return course;
}

/** `:account_id` / `:id` of an account route; `self` is the domain's root account. */
export function accountParam(lms: LmsRuntime, value: string | undefined): Account {
  const account =
    value === 'self' ? lms.state.rootAccount() : findByApiId(lms, lms.state.accounts, value, (a) => a.id);
  if (!account) throw apiErrors.notFound();
  return account;
}
