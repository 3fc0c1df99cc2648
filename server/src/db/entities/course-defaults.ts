import { defineEntity, p } from '@mikro-orm/core';
import type { ExbUrlRule, ExternalToolConfig } from '@exb/shared/exb-policy.js';

/**
 * URL policy defaults, tool catalog and default passwords of one course. A course reset clears the policy and
 * advances `resetGeneration` but keeps the row, so the generation never goes back.
 */
export const CourseDefaults = defineEntity({
  name: 'CourseDefaults',
  tableName: 'course_defaults',
  properties: {
    courseId: p.text().primary(),
    urlRules: p.json<ExbUrlRule[]>().columnType('jsonb').defaultRaw("'[]'"),
    externalTools: p.json<ExternalToolConfig[]>().columnType('jsonb').defaultRaw("'[]'"),
    startPasswordSealed: p.blob().nullable(),
    startPasswordKeyId: p.text().nullable(),
    exitPasswordSealed: p.blob().nullable(),
    exitPasswordKeyId: p.text().nullable(),
    setupCompleted: p.boolean().default(false),
    resetGeneration: p.integer().default(0),
    updatedAt: p.datetime().defaultRaw('now()').onUpdate(() => new Date()),
  },
});
