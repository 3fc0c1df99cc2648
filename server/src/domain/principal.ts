import { z } from 'zod';

const lmsId = z.string().regex(/^\d{1,20}$/, 'must be a numeric LMS id');
const nonEmpty = z.string().min(1).max(512);

const common = {
  lmsUserId: lmsId,
  ltiSubject: nonEmpty,
  issuer: nonEmpty,
  deploymentId: nonEmpty,
  /** Display name from the signed token, when the LMS sent one. */
  name: z.string().max(256).optional(),
};

/**
 * The verified LTI principal kept in the session (Document 1, "Verified LTI principal"). Every identifier comes from
 * the validated launch token, never from a query or body.
 */
export const principalSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('instructor'), ...common, courseId: lmsId, courseName: z.string().max(512).optional() }),
  z.object({ kind: z.literal('student'), ...common, courseId: lmsId, courseName: z.string().max(512).optional() }),
  z.object({ kind: z.literal('admin'), ...common, accountId: lmsId, accountName: z.string().max(512).optional() }),
]);

export type Principal = z.infer<typeof principalSchema>;
export type PrincipalKind = Principal['kind'];
export type CoursePrincipal = Extract<Principal, { courseId: string }>;
