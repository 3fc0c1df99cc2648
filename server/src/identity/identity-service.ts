import type { Logger } from 'pino';
import { ErrorCodes } from '@exb/shared/error-codes.js';
import { DomainError } from '../domain-error.js';
import { ConfirmationCache } from './confirmation-cache.js';
import type { CoursePrincipal, Principal } from './principal.js';
import type { LmsApi } from '../lms/api.js';
import type { GrantHolder, LmsConnector } from '../lms/connector.js';
import { LmsAuthorizationRequiredError, isLmsError } from '../lms/errors.js';
import type { BindingRepository, ContextKind, ContextProver, ContextRef, SubjectRef, UserBindingSource } from './binding-repository.js';

type AdminPrincipal = Extract<Principal, { kind: 'admin' }>;
type InstructorPrincipal = Extract<Principal, { kind: 'instructor' }>;

/** Why a launch is refused: a claimed id contradicts what the LMS proved before. */
export type LaunchIdentityConflict = 'user' | 'context';

export type CourseProof = 'proven' | 'mismatch' | 'conflict';
export type AdministratorConfirmation = 'confirmed' | 'not-root' | 'mismatch' | 'conflict';

/** Whose grant can resolve a course's signed context for a launch when no launch of the course proved it yet. */
export interface CourseAdministratorSource {
  /** A usable grant of an administrator of the root account the course is connected in, or `null`. */
  courseAdministratorHolder(courseId: string): Promise<GrantHolder | null>;
}

/** How many proven context bindings this process remembers; a binding never changes once written. */
const PROVEN_CACHE_LIMIT = 10_000;
/**
 * How long this process trusts an administrator's or an instructor's confirmation before asking the LMS again. Unlike
 * a binding, a role can end; the window bounds how long someone removed keeps acting through this instance.
 */
export const ROLE_CONFIRMATION_TTL_MS = 5 * 60 * 1000;

/** The enrollment types (as the LMS's course list names them) that make a course instructor: teacher, TA, designer. */
const INSTRUCTOR_ENROLLMENT_TYPES: ReadonlySet<string> = new Set(['teacher', 'ta', 'designer']);
/**
 * How long this process takes a course an administrator's grant could not prove for a context as unproven before
 * asking again: bounds the LMS calls a launch from another context that claims the course can cause, yet lets a
 * course an administrator connects meanwhile be read within a minute.
 */
const ADMINISTRATOR_PROOF_RETRY_MS = 60 * 1000;

export function contextRefOf(principal: Principal): ContextRef {
  return principal.kind === 'admin'
    ? { issuer: principal.issuer, kind: 'account', ltiContextId: principal.ltiContextId, lmsId: principal.accountId }
    : { issuer: principal.issuer, kind: 'course', ltiContextId: principal.ltiContextId, lmsId: principal.courseId };
}

/**
 * The one place that decides whether a principal's LMS ids can be believed (DESIGN.md, trust model). The launch gives
 * a principal whose kind, subject and context are signed by the platform; its numeric user, course and account ids
 * come from custom fields a course author can override per link. So:
 * - a launch whose claimed ids contradict a proven binding is refused ({@link checkLaunch});
 * - the user id is proven by the user's own OAuth callback (the token repository stores the subject with the grant,
 *   and a grant acts only for that subject);
 * - the course id is proven through the LMS with a user's own grant ({@link proveCourse}); the account id of an
 *   administrator likewise, through the administrator's grant ({@link confirmAdministrator}).
 * Management of a course, secrets and student configurations wait until both the user and the context are proven.
 */
export class IdentityService {
  private readonly proven = new Map<string, string>();
  /** Administrators and instructors the LMS confirmed lately, per person and account or course. */
  private readonly confirmedRoles: ConfirmationCache;
  private readonly recordedInstructors = new Set<string>();
  private readonly administratorProofs = new Map<string, Promise<boolean>>();
  private readonly administratorRefusals = new Map<string, number>();

  constructor(
    private readonly bindings: BindingRepository,
    private readonly users: UserBindingSource,
    private readonly lms: LmsConnector,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
    private readonly administrators: CourseAdministratorSource | null = null,
  ) {
    this.confirmedRoles = new ConfirmationCache(ROLE_CONFIRMATION_TTL_MS, now, PROVEN_CACHE_LIMIT);
  }

  /** Launch step after the role decision: `null` when nothing proven contradicts the principal. */
  async checkLaunch(principal: Principal): Promise<LaunchIdentityConflict | null> {
    const context = contextRefOf(principal);
    // A proven binding never changes and binds its context and its id to each other alone, so once this process knows
    // the context's id, a claimed id either is that id (proven, no conflict) or contradicts it; no query can say more.
    const known = this.proven.get(cacheKey(context.issuer, context.kind, context.ltiContextId));
    const [users, check] = await Promise.all([
      this.users.userBindings(principal),
      known === undefined
        ? this.bindings.checkContext(context)
        : { contextProven: known === context.lmsId, contextConflict: known !== context.lmsId },
    ]);
    if (check.contextProven) this.remember(context);
    // The claimed user id is bound to another subject, or the subject to another user id.
    if (users.some((bound) => !sameUser(bound, principal))) return 'user';
    if (check.contextConflict) return 'context';
    return null;
  }

  /** Whether the principal's user id is proven for its subject (a grant bound to it is stored). */
  async userProven(principal: Principal): Promise<boolean> {
    return (await this.users.userBindings(principal)).some((bound) => sameUser(bound, principal));
  }

  /** Whether the principal's course or account id is proven for its signed context. */
  async contextProven(principal: Principal): Promise<boolean> {
    const context = contextRefOf(principal);
    return (await this.boundIdOf(context)) === context.lmsId;
  }

  /** The id proven for the principal's signed context, or `null` while none is. */
  private async boundIdOf(context: ContextRef): Promise<string | null> {
    const cached = this.proven.get(cacheKey(context.issuer, context.kind, context.ltiContextId));
    if (cached !== undefined) return cached;
    const bound = await this.bindings.boundId(context.issuer, context.kind, context.ltiContextId);
    if (bound !== null) this.remember({ ...context, lmsId: bound });
    return bound;
  }

  /**
   * Whether the course-scoped reads of a student's session (the required list, the approved tools, the required-browser
   * views, the configuration grant) may answer: the course id must be proven for the signed context. A course nobody
   * launched into with a grant yet, but which an administrator connected, is proven now through that administrator's
   * grant, which the LMS answers `lti_context_id:` lookups for within its root account (as it does for a member of the
   * course). A launch from another context that claims the course is refuted by the same lookup.
   */
  async courseProvenForReading(principal: CoursePrincipal): Promise<boolean> {
    const bound = await this.boundIdOf(contextRefOf(principal));
    // A context proven for any id answers for itself; only one nobody proved yet is worth asking the LMS about.
    if (bound !== null) return bound === principal.courseId;
    if (this.administrators === null) return false;
    const key = JSON.stringify([principal.issuer, principal.ltiContextId, principal.courseId]);
    const refusedAt = this.administratorRefusals.get(key);
    if (refusedAt !== undefined && this.now() - refusedAt < ADMINISTRATOR_PROOF_RETRY_MS) return false;
    // Students of the course arrive together: one lookup answers all of them.
    let pending = this.administratorProofs.get(key);
    if (pending === undefined) {
      pending = this.proveThroughAdministrator(principal).finally(() => this.administratorProofs.delete(key));
      this.administratorProofs.set(key, pending);
    }
    const proven = await pending;
    if (!proven) {
      if (this.administratorRefusals.size >= PROVEN_CACHE_LIMIT) this.administratorRefusals.clear();
      this.administratorRefusals.set(key, this.now());
    }
    return proven;
  }

  private async proveThroughAdministrator(principal: CoursePrincipal): Promise<boolean> {
    const holder = await this.administrators!.courseAdministratorHolder(principal.courseId);
    if (holder === null) return false;
    try {
      const resolved = await this.lms.forPrincipal(holder).courseIdForContext(principal.ltiContextId);
      if (resolved !== principal.courseId) {
        this.logger.warn({ courseId: principal.courseId, resolved }, 'claimed course id differs from the signed context');
        return false;
      }
    } catch (error) {
      if (!isLmsError(error)) throw error;
      this.logger.info({ courseId: principal.courseId, err: error }, 'course could not be proven through an administrator');
      return false;
    }
    return (await this.record(contextRefOf(principal), { lmsUserId: holder.lmsUserId, role: 'administrator' })) === 'proven';
  }

  /**
   * Proves the course of a course principal with the principal's own grant: the LMS resolves the signed context id to
   * a numeric course only within that course, so a user who can read it there learns the one true id. Throws what the
   * LMS call throws (an unproven user's grant does not act: `identity-unproven`).
   */
  async proveCourse(principal: CoursePrincipal, lms: LmsApi): Promise<CourseProof> {
    if (await this.contextProven(principal)) return 'proven';
    const resolved = await lms.courseIdForContext(principal.ltiContextId);
    if (resolved !== principal.courseId) {
      this.logger.warn({ courseId: principal.courseId, resolved }, 'claimed course id differs from the signed context');
      return 'mismatch';
    }
    return this.record(contextRefOf(principal), { lmsUserId: principal.lmsUserId, role: principal.kind });
  }

  /**
   * Confirms an administrator through the administrator's own grant: the signed account context must resolve to a
   * root account the user can read as an administrator, and it must be the account the principal carries.
   */
  async confirmAdministrator(principal: AdminPrincipal, lms: LmsApi): Promise<AdministratorConfirmation> {
    const account = await lms.getAccountForContext(principal.ltiContextId);
    if (account.rootAccountId !== null) return 'not-root';
    if (account.id !== principal.accountId) {
      this.logger.warn({ accountId: principal.accountId, resolved: account.id }, 'claimed account id differs from the signed context');
      return 'mismatch';
    }
    const recorded = await this.record(contextRefOf(principal), { lmsUserId: principal.lmsUserId, role: 'administrator' });
    return recorded === 'proven' ? 'confirmed' : 'conflict';
  }

  /**
   * Course-scoped management (every instructor procedure): the user id must be proven for the subject, and the course
   * id for the signed context, proving it now through the user's own grant when nobody has yet. Refuses with the
   * contract's errors: authorization required (connect the LMS account), or the course mismatch.
   */
  async requireCourse(principal: CoursePrincipal): Promise<void> {
    if (!(await this.userProven(principal))) throw new LmsAuthorizationRequiredError('identity', 'identity-unproven');
    const proof = await this.proveCourse(principal, this.lms.forPrincipal(principal));
    if (proof !== 'proven') {
      throw new DomainError(ErrorCodes.COURSE_MISMATCH,
        'The LMS does not confirm that this launch belongs to this course. Open the tool again from the course in the LMS.',
      );
    }
    if (principal.kind === 'instructor') await this.recordInstructor(principal);
  }

  /**
   * A proven instructor of a proven course becomes its prover of record when a student proved it first (once per
   * process and instructor), so the background verifier has an instructor's grant to act with (never a student's).
   */
  private async recordInstructor(principal: CoursePrincipal): Promise<void> {
    const key = JSON.stringify([principal.issuer, principal.ltiContextId, principal.courseId, principal.lmsUserId]);
    if (this.recordedInstructors.has(key)) return;
    await this.bindings.recordInstructor(contextRefOf(principal), principal.lmsUserId);
    if (this.recordedInstructors.size >= PROVEN_CACHE_LIMIT) this.recordedInstructors.clear();
    this.recordedInstructors.add(key);
  }

  /** Administrator actions: a confirmed root-account administrator (re-confirmed every few minutes per process). */
  async requireAdministrator(principal: AdminPrincipal): Promise<void> {
    const key = JSON.stringify(['admin', principal.issuer, principal.ltiSubject, principal.lmsUserId, principal.accountId, principal.ltiContextId]);
    if (this.confirmedRoles.has(key)) return;
    if (!(await this.userProven(principal))) throw new LmsAuthorizationRequiredError('identity', 'identity-unproven');
    const confirmation = await this.confirmAdministrator(principal, this.lms.forPrincipal(principal));
    if (confirmation !== 'confirmed') {
      this.confirmedRoles.forget(key);
      throw new DomainError(ErrorCodes.ADMIN_NOT_CONFIRMED, 'The LMS does not confirm you as an administrator of this root account.');
    }
    this.confirmedRoles.remember(key);
  }

  /**
   * Whether the LMS still lists the instructor in the course, asked with the instructor's own grant: the course list
   * of the user (`GET /api/v1/courses?enrollment_state=active`, the one course read the application scopes allow)
   * carries the caller's own enrollments per course. A removed (deleted) or concluded enrollment is not active, and a
   * teacher who is now only a student there holds no instructor enrollment.
   */
  async confirmInstructor(principal: InstructorPrincipal, lms: LmsApi): Promise<boolean> {
    const courses = await lms.listCourses({ enrollmentState: 'active' });
    const course = courses.find((candidate) => candidate.id === principal.courseId);
    return (
      course?.enrollments.some(
        (enrollment) =>
          INSTRUCTOR_ENROLLMENT_TYPES.has(enrollment.type) &&
          (enrollment.enrollmentState === null || enrollment.enrollmentState === 'active') &&
          (enrollment.userId === null || enrollment.userId === principal.lmsUserId),
      ) ?? false
    );
  }

  /**
   * Before a secret is revealed or a course setting is written: the proven instructor is still an instructor of the
   * course in the LMS (re-confirmed every few minutes per process, per person and course). The launch's roles are
   * only as current as the launch, and a session lives for hours.
   */
  async requireInstructor(principal: InstructorPrincipal): Promise<void> {
    const key = JSON.stringify(['instructor', principal.issuer, principal.ltiSubject, principal.lmsUserId, principal.courseId]);
    if (this.confirmedRoles.has(key)) return;
    if (!(await this.confirmInstructor(principal, this.lms.forPrincipal(principal)))) {
      this.logger.info({ courseId: principal.courseId }, 'the LMS no longer lists the instructor in the course');
      throw new DomainError(
        ErrorCodes.INSTRUCTOR_REQUIRED,
        'The LMS no longer lists you as an instructor of this course, so this change or password is not available.',
      );
    }
    this.confirmedRoles.remember(key);
  }

  /**
   * Right after a successful authorization the user is proven, so the launch's course or account can be proven through
   * the same grant. Best effort: a failure leaves it unproven, and the next management request tries again.
   */
  async afterAuthorization(principal: Principal): Promise<void> {
    try {
      if (principal.kind === 'admin') await this.requireAdministrator(principal);
      else await this.proveCourse(principal, this.lms.forPrincipal(principal));
    } catch (error) {
      if (!isLmsError(error) && !(error instanceof DomainError)) throw error;
      this.logger.info({ kind: principal.kind, err: error }, 'context could not be proven after authorization');
    }
  }

  private async record(context: ContextRef, provenBy: ContextProver): Promise<'proven' | 'conflict'> {
    if (!(await this.bindings.recordContext(context, provenBy))) {
      this.logger.warn({ kind: context.kind, lmsId: context.lmsId }, 'context binding conflicts with an earlier proof');
      return 'conflict';
    }
    this.remember(context);
    return 'proven';
  }

  private remember(context: ContextRef): void {
    if (this.proven.size >= PROVEN_CACHE_LIMIT) this.proven.clear();
    this.proven.set(cacheKey(context.issuer, context.kind, context.ltiContextId), context.lmsId);
  }
}

function sameUser(bound: Pick<SubjectRef, 'lmsUserId' | 'ltiSubject'>, subject: SubjectRef): boolean {
  return bound.lmsUserId === subject.lmsUserId && bound.ltiSubject === subject.ltiSubject;
}

function cacheKey(issuer: string, kind: ContextKind, ltiContextId: string): string {
  return JSON.stringify([issuer, kind, ltiContextId]);
}
