import { z } from 'zod';
import { ErrorCodes } from '@exb/shared/error-codes.js';
import type { AuditEntry, AuditLog, AuditQuery } from '../../audit/audit-log.js';
import { DomainError } from '../../domain-error.js';

/** An entry as the teacher and administrator views show it; times as ISO strings. */
export interface AuditEntryView {
  readonly id: string;
  readonly occurredAt: string;
  readonly action: string;
  readonly outcome: AuditEntry['outcome'];
  readonly actor: AuditEntry['actor'];
  readonly courseId: string | null;
  readonly contentId: string | null;
  readonly requestId: string | null;
  readonly details: AuditEntry['details'];
}

export function entryView(entry: AuditEntry): AuditEntryView {
  const { occurredAt, rootAccountId: _account, ...rest } = entry;
  return { ...rest, occurredAt: occurredAt.toISOString() };
}

/** The administrator's filters; every one optional. `action` is exact, or an area ending in `.` (`enforcement.`). */
export const auditFilterSchema = z.object({
  courseId: z.string().regex(/^\d{1,20}$/).optional(),
  userId: z.string().regex(/^\d{1,20}$/).optional(),
  action: z.string().regex(/^[a-z][a-z0-9-]*(\.[a-z0-9-]*)*$/).max(100).optional(),
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
});
export type AuditFilter = z.infer<typeof auditFilterSchema>;

export const AUDIT_PAGE_SIZE = 50;
/** The CSV holds at most this many of the newest matching entries; a narrower filter exports older ones. */
export const AUDIT_EXPORT_LIMIT = 10_000;

/** Keyset cursor: the last shown entry's time and id. */
const cursorSchema = z.object({ t: z.iso.datetime(), id: z.string().regex(/^\d{1,20}$/) });

function decodeCursor(cursor: string): { occurredAt: Date; id: string } {
  try {
    const parsed = cursorSchema.parse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
    return { occurredAt: new Date(parsed.t), id: parsed.id };
  } catch {
    throw new DomainError(ErrorCodes.INVALID_CURSOR, 'This page of the audit trail is no longer valid; start from the first page.');
  }
}

function encodeCursor(entry: AuditEntry): string {
  return Buffer.from(JSON.stringify({ t: entry.occurredAt.toISOString(), id: entry.id })).toString('base64url');
}

/** An entry of the administrator's trail, with the course's name and the assessment's title where the service knows them. */
export interface NamedAuditEntryView extends AuditEntryView {
  readonly courseName: string | null;
  readonly assessmentTitle: string | null;
}

/** The names the service knows now: a connected course's, and an assessment's as last discovered. */
export interface AuditTitles {
  titles(accountId: string, entries: readonly Pick<AuditEntry, 'courseId' | 'contentId'>[]): Promise<{ courses: Map<string, string>; assessments: Map<string, string> }>;
}

/**
 * The audit trail as the administrator reads it: the account's entries (its administrators' and those of every
 * connected course), newest first, filtered, a page at a time or as one export.
 */
export class AccountAuditTrail {
  constructor(
    private readonly audit: AuditLog,
    private readonly names?: AuditTitles,
  ) {}

  async page(accountId: string, filter: AuditFilter, cursor?: string): Promise<{ entries: NamedAuditEntryView[]; nextCursor: string | null }> {
    const query = { ...this.query(accountId, filter), limit: AUDIT_PAGE_SIZE + 1 };
    if (cursor !== undefined) query.before = decodeCursor(cursor);
    const entries = await this.audit.list(query);
    const shown = entries.slice(0, AUDIT_PAGE_SIZE);
    const { courses, assessments } = this.names ? await this.names.titles(accountId, shown) : { courses: new Map<string, string>(), assessments: new Map<string, string>() };
    return {
      entries: shown.map((entry) => ({
        ...entryView(entry),
        courseName: entry.courseId === null ? null : (courses.get(entry.courseId) ?? null),
        assessmentTitle: entry.courseId === null || entry.contentId === null ? null : (assessments.get(`${entry.courseId} ${entry.contentId}`) ?? null),
      })),
      nextCursor: entries.length > AUDIT_PAGE_SIZE ? encodeCursor(shown.at(-1)!) : null,
    };
  }

  export(accountId: string, filter: AuditFilter): Promise<AuditEntry[]> {
    return this.audit.list({ ...this.query(accountId, filter), limit: AUDIT_EXPORT_LIMIT });
  }

  private query(accountId: string, filter: AuditFilter): AuditQuery {
    const query: AuditQuery = { accountScope: accountId, limit: AUDIT_PAGE_SIZE };
    if (filter.courseId !== undefined) query.courseId = filter.courseId;
    if (filter.userId !== undefined) query.actorLmsUserId = filter.userId;
    if (filter.action !== undefined) query.action = filter.action;
    if (filter.from !== undefined) query.from = new Date(filter.from);
    if (filter.to !== undefined) query.to = new Date(filter.to);
    return query;
  }
}
