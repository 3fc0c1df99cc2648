import { defineEntity, p } from '@mikro-orm/core';
import type { ExbUrlRule, ExternalToolConfig } from '@exb/shared/exb-policy.js';
import type { VerificationStatus } from '@exb/shared/verification-status.js';

/**
 * Enforcement and policy of one assessment. Secrets are sealed (`*Sealed`, with the id of the sealing key); only the
 * settings repository reads or writes them. `version` is compared and advanced by every write, by the repository's
 * conditional updates and by the ORM's own optimistic locking alike.
 */
export const AssessmentSetting = defineEntity({
  name: 'AssessmentSetting',
  tableName: 'assessment_setting',
  properties: {
    courseId: p.text().primary(),
    contentId: p.text().primary(),
    exbRequired: p.boolean().default(false),
    enabled: p.boolean().default(false),
    accessCodeSealed: p.blob().nullable(),
    accessCodeKeyId: p.text().nullable(),
    usesCourseDefaults: p.boolean().default(true),
    urlRules: p.json<ExbUrlRule[]>().columnType('jsonb').defaultRaw("'[]'"),
    externalToolIds: p.json<string[]>().columnType('jsonb').nullable(),
    quizOnlyTools: p.json<ExternalToolConfig[]>().columnType('jsonb').defaultRaw("'[]'"),
    startPasswordSealed: p.blob().nullable(),
    startPasswordKeyId: p.text().nullable(),
    exitPasswordSealed: p.blob().nullable(),
    exitPasswordKeyId: p.text().nullable(),
    verificationStatus: p.text().$type<VerificationStatus>().default('unverified'),
    verifiedAt: p.datetime().nullable(),
    verificationReason: p.text().nullable(),
    verifiedByLmsUserId: p.text().nullable(),
    updatedAt: p.datetime().defaultRaw('now()').onUpdate(() => new Date()),
    version: p.integer().version(),
  },
});
