import { defineEntity, p } from '@mikro-orm/core';

/**
 * A numeric LMS course or account id bound to the signed `context.id` it was proven for (see the migration). Reads and
 * writes go through `identity/binding-repository.ts`; the entity documents the table for the ORM.
 */
export const LtiContextBinding = defineEntity({
  name: 'LtiContextBinding',
  tableName: 'lti_context_binding',
  properties: {
    issuer: p.text().primary(),
    contextKind: p.text().primary(),
    ltiContextId: p.text().primary(),
    lmsId: p.text(),
    provenByLmsUserId: p.text(),
    /** `instructor`, `student` or `administrator`; `null` on a binding from before the role was recorded. */
    provenByRole: p.text().nullable(),
    provenAt: p.datetime().defaultRaw('now()'),
  },
});
