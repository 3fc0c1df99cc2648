import { defineEntity, p } from '@mikro-orm/core';

/** An assessment as last discovered in the LMS, keyed by course and content id. */
export const Assessment = defineEntity({
  name: 'Assessment',
  tableName: 'assessment',
  properties: {
    courseId: p.text().primary(),
    contentId: p.text().primary(),
    contentType: p.text().$type<'CLASSIC_QUIZ' | 'NEW_QUIZ'>(),
    /** The classic quiz id, or the new quiz's assignment id. */
    lmsAssessmentId: p.text(),
    title: p.text(),
    published: p.boolean().default(false),
    /** The LMS showed an access code on it at the last discovery (`domain/enforcement/unmanaged-code.ts`). */
    lmsHasAccessCode: p.boolean().default(false),
    /** The LMS's unlock and due times at the last discovery, which the pre-exam sweep checks before (`domain/pre-exam-sweep/`). */
    unlockAt: p.datetime().nullable(),
    dueAt: p.datetime().nullable(),
    /** The unlock and due times of the LMS's overrides (sections, groups, students), distinct and in order. */
    overrideStarts: p.array<Date>().columnType('timestamptz[]').defaultRaw("'{}'"),
    discoveredAt: p.datetime().defaultRaw('now()'),
    updatedAt: p.datetime().defaultRaw('now()').onUpdate(() => new Date()),
  },
});
