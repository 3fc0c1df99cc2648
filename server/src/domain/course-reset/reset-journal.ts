import type { MikroORM } from '@mikro-orm/postgresql';
import { z } from 'zod';
import type { SqlOnClient } from '../../db/pg-transaction.js';
import { open, seal } from '../../security/aead.js';
import { deriveKey } from '../../security/derived-keys.js';
import { lockNames } from '../locks.js';
import { contentTypeSchema } from '../settings/model.js';

/**
 * The durable journal of a running course reset (`course_reset_journal`), so a reset whose process died half-way can
 * be finished or undone by whichever instance comes next (`reset-recovery.ts`). It holds what the process kept only in
 * memory before: the assessments whose codes it removes, which removals began, and the captured codes, sealed with a
 * key of their own and bound to the course, so a row copied to another course does not open.
 *
 * Its lifetime tells the reset's fate: written before the first LMS step; deleted by the reset's own transaction (so a
 * journal left behind means that transaction never committed) or once every code was put back.
 */

export const JOURNAL_PHASES = ['lms', 'local', 'compensating'] as const;
export type JournalPhase = (typeof JOURNAL_PHASES)[number];

const journalAssessmentSchema = z.object({
  id: z.string().min(1).max(100),
  title: z.string().max(500),
  contentType: contentTypeSchema,
  lmsAssessmentId: z.string().regex(/^\d{1,20}$/),
});
export type JournalAssessment = z.infer<typeof journalAssessmentSchema>;

const codesSchema = z.record(z.string(), z.string());

/** A journal as read back, the codes opened. */
export interface JournalEntry {
  readonly courseId: string;
  readonly accountId: string;
  readonly owner: string;
  readonly phase: JournalPhase;
  readonly byLmsUserId: string;
  readonly actorName: string | null;
  readonly requestId: string | null;
  /** The assessments whose codes the reset removes, in step order. */
  readonly plan: readonly JournalAssessment[];
  /** Content ids whose removal began; the last one may not have reached the LMS. */
  readonly removed: readonly string[];
  /** The captured code of every planned assessment, by content id; `null` when the sealed codes do not open. */
  readonly codes: ReadonlyMap<string, string> | null;
  readonly startedAt: Date;
}

export interface NewJournal {
  readonly courseId: string;
  readonly accountId: string;
  readonly owner: string;
  readonly byLmsUserId: string;
  readonly actorName: string | null;
  readonly requestId: string | null;
  readonly plan: readonly (JournalAssessment & { readonly code: string })[];
}

interface Row {
  course_id: string;
  account_id: string;
  owner: string;
  phase: string;
  by_lms_user_id: string;
  actor_name: string | null;
  request_id: string | null;
  plan: unknown;
  removed: unknown;
  codes_sealed: Buffer;
  started_at: Date;
}

const associatedData = (courseId: string) => `course_reset_journal:${courseId}`;

export class ResetJournal {
  private readonly key: Buffer;

  constructor(
    private readonly orm: MikroORM,
    appSecret: Buffer,
  ) {
    this.key = deriveKey(appSecret, 'course-reset-journal');
  }

  /** Writes the journal as the reset's first durable act (in the transaction that also records `started`). */
  async begin(tx: SqlOnClient, journal: NewJournal): Promise<void> {
    const codes = Object.fromEntries(journal.plan.map((assessment) => [assessment.id, assessment.code]));
    const sealed = seal(this.key, Buffer.from(JSON.stringify(codes), 'utf8'), associatedData(journal.courseId));
    const plan = journal.plan.map(({ id, title, contentType, lmsAssessmentId }) => ({ id, title, contentType, lmsAssessmentId }));
    await tx.execute(
      `insert into course_reset_journal (course_id, account_id, owner, phase, by_lms_user_id, actor_name, request_id, plan, codes_sealed)
       values (?, ?, ?, 'lms', ?, ?, ?, ?::jsonb, ?)`,
      [journal.courseId, journal.accountId, journal.owner, journal.byLmsUserId, journal.actorName, journal.requestId, JSON.stringify(plan), sealed],
      'run',
    );
  }

  /** Records that the removal of `contentId`'s code begins; written before the LMS is asked. */
  async removing(courseId: string, owner: string, contentId: string): Promise<void> {
    await this.update(
      `update course_reset_journal set removed = removed || to_jsonb(?::text), updated_at = now()
       where course_id = ? and owner = ? and not removed @> jsonb_build_array(?::text)`,
      [contentId, courseId, owner, contentId],
    );
  }

  /** Moves the journal to `phase`, only while `owner` (the lease owner that wrote or took it over) still holds it. */
  async enter(courseId: string, owner: string, phase: JournalPhase): Promise<void> {
    await this.update(`update course_reset_journal set phase = ?, updated_at = now() where course_id = ? and owner = ?`, [phase, courseId, owner]);
  }

  /** Takes a journal over for a new lease owner (the recovery), returning it; `null` when there is none. */
  async takeOver(courseId: string, owner: string): Promise<JournalEntry | null> {
    const rows = await this.connection().execute<Row[]>(
      `update course_reset_journal set owner = ?, updated_at = now() where course_id = ? returning *`,
      [owner, courseId],
    );
    return rows[0] === undefined ? null : this.entryOf(rows[0]);
  }

  /** Courses with a journal and no live reset lease: their reset's process is gone. */
  async abandoned(limit = 20): Promise<string[]> {
    const rows = await this.connection().execute<{ course_id: string }[]>(
      `select j.course_id from course_reset_journal j
       where not exists (select 1 from lease l where l.name = ? || j.course_id and l.expires_at > now())
       order by j.started_at limit ?`,
      [lockNames.courseReset(''), limit],
    );
    return rows.map((row) => row.course_id);
  }

  private async update(sql: string, params: unknown[]): Promise<void> {
    await this.connection().execute(sql, params, 'run');
  }

  private connection() {
    return this.orm.em.getConnection();
  }

  private entryOf(row: Row): JournalEntry {
    const opened = open(this.key, Buffer.from(row.codes_sealed), associatedData(row.course_id));
    const codes = opened === null ? null : codesSchema.safeParse(JSON.parse(opened.toString('utf8')));
    return {
      courseId: row.course_id,
      accountId: row.account_id,
      owner: row.owner,
      phase: z.enum(JOURNAL_PHASES).parse(row.phase),
      byLmsUserId: row.by_lms_user_id,
      actorName: row.actor_name,
      requestId: row.request_id,
      plan: z.array(journalAssessmentSchema).parse(row.plan),
      removed: z.array(z.string()).parse(row.removed),
      codes: codes?.success ? new Map(Object.entries(codes.data)) : null,
      startedAt: new Date(row.started_at),
    };
  }
}

/**
 * Deletes the course's journal in a transaction that settles the reset: the reset's own (a committed reset leaves none
 * behind), or the one that records it undone. With `owner`, only while that lease owner still holds it.
 */
export async function deleteJournal(tx: SqlOnClient, courseId: string, owner?: string): Promise<void> {
  if (owner === undefined) await tx.execute('delete from course_reset_journal where course_id = ?', [courseId], 'run');
  else await tx.execute('delete from course_reset_journal where course_id = ? and owner = ?', [courseId, owner], 'run');
}
