import { z } from 'zod';

/** The course staff role an instructor principal launched with: teacher, teaching assistant or designer. */
export const courseRoleSchema = z.enum(['teacher', 'teaching-assistant', 'designer']);
export type CourseRole = z.infer<typeof courseRoleSchema>;

const lmsId = z.string().regex(/^\d{1,20}$/, 'must be a numeric LMS id');
const nonEmpty = z.string().min(1).max(512);

const common = {
  lmsUserId: lmsId,
  ltiSubject: nonEmpty,
  issuer: nonEmpty,
  deploymentId: nonEmpty,
  /** The signed `context.id` of the launch (opaque); the numeric course or account id is bound to it once proven. */
  ltiContextId: z.string().min(1).max(255),
  /** Display name from the signed token, when the LMS sent one. */
  name: z.string().max(256).optional(),
};

/**
 * The verified LTI principal kept in the session (Document 1, "Verified LTI principal"). Every identifier comes from
 * the validated launch token, never from a query or body. The kind and `ltiSubject`, `issuer`, `deploymentId` and
 * `ltiContextId` are platform-computed claims; `lmsUserId`, `courseId` and `accountId` are the LMS's substitutions,
 * which course authors can override per link, so they count only once bound (`identity/`).
 */
export const principalSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('instructor'),
    ...common,
    courseId: lmsId,
    courseName: z.string().max(512).optional(),
    /** How the person is greeted, from the signed roles only; it grants nothing. Absent in sessions from before it existed. */
    courseRole: courseRoleSchema.optional(),
  }),
  z.object({ kind: z.literal('student'), ...common, courseId: lmsId, courseName: z.string().max(512).optional() }),
  z.object({ kind: z.literal('admin'), ...common, accountId: lmsId, accountName: z.string().max(512).optional() }),
]);

export type Principal = z.infer<typeof principalSchema>;
export type PrincipalKind = Principal['kind'];
export type CoursePrincipal = Extract<Principal, { courseId: string }>;
