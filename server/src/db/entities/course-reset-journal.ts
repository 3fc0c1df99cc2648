import { defineEntity, p } from '@mikro-orm/core';

/**
 * The journal of a course reset while it runs (`Migration20261127000000_course_reset_journal`): what it removed from
 * the LMS and the codes it captured (sealed), so another instance can finish or undo a reset whose process died.
 */
export const CourseResetJournal = defineEntity({
  name: 'CourseResetJournal',
  tableName: 'course_reset_journal',
  properties: {
    courseId: p.text().primary(),
    accountId: p.text(),
    owner: p.text(),
    phase: p.text().$type<'lms' | 'local' | 'compensating'>(),
    byLmsUserId: p.text(),
    actorName: p.text().nullable(),
    requestId: p.text().nullable(),
    plan: p.json<unknown[]>().columnType('jsonb'),
    removed: p.json<string[]>().columnType('jsonb').defaultRaw("'[]'"),
    codesSealed: p.blob(),
    startedAt: p.datetime().defaultRaw('now()'),
    updatedAt: p.datetime().defaultRaw('now()'),
  },
});
