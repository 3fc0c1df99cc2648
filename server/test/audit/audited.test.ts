import { describe, expect, it } from 'vitest';
import type { AuditEntryInput, AuditLog, AuditOutcome } from '../../src/audit/audit-log.js';
import { audited, failedWithCode } from '../../src/audit/audited.js';
import { DomainError } from '../../src/domain-error.js';
import { LmsNotFoundError } from '../../src/lms/errors.js';
import { instructor } from '../support/sessions.js';

/** A trail in memory: `begin` enters a pending entry, `complete` fills in its outcome and adds its details. */
function trail() {
  const entries: AuditEntryInput[] = [];
  const log = {
    begin: async (entry: AuditEntryInput) => ({ id: String(entries.push({ ...entry, outcome: 'pending' }) - 1) }),
    complete: async (attempt: { id: string }, outcome: AuditOutcome, details: Record<string, unknown> = {}) => {
      const entry = entries[Number(attempt.id)]!;
      entries[Number(attempt.id)] = { ...entry, outcome, details: { ...entry.details, ...details } as AuditEntryInput['details'] };
    },
  } as unknown as AuditLog;
  return { log, entries };
}

const by = { principal: instructor(), requestId: 'req-1' };
const target = { action: 'enforcement.reapply-protection', courseId: '101', contentId: 'classicquiz_201' };

async function entryFor(error: unknown, failure?: typeof failedWithCode) {
  const { log, entries } = trail();
  const work = () => Promise.reject(error);
  await expect(audited(log, by, target, work, () => ({}), failure)).rejects.toBe(error);
  return entries.map(({ outcome, details }) => ({ outcome, details }));
}

describe('audited', () => {
  it('enters a success with the details of its result, and who asked in which request', async () => {
    const { log, entries } = trail();
    const result = await audited(log, by, target, async () => ({ verificationStatus: 'verified' }), (r) => r);
    expect(result).toEqual({ verificationStatus: 'verified' });
    expect(entries).toEqual([
      expect.objectContaining({ ...target, outcome: 'success', requestId: 'req-1', rootAccountId: null, details: { verificationStatus: 'verified' } }),
    ]);
  });

  it('by default enters a domain refusal as refused and anything else as failed, by its class name', async () => {
    expect(await entryFor(new DomainError('EXB_NOT_ENABLED', 'no'))).toEqual([{ outcome: 'refused', details: { errorCode: 'EXB_NOT_ENABLED' } }]);
    expect(await entryFor(new LmsNotFoundError('getQuiz'))).toEqual([{ outcome: 'failed', details: { errorCode: 'LmsNotFoundError' } }]);
  });

  it('enters every failed repair as failed, under the contract code it carries or INTERNAL_ERROR', async () => {
    expect(await entryFor(new DomainError('EXB_NOT_ENABLED', 'no'), failedWithCode)).toEqual([
      { outcome: 'failed', details: { errorCode: 'EXB_NOT_ENABLED' } },
    ]);
    expect(await entryFor(new LmsNotFoundError('getQuiz'), failedWithCode)).toEqual([{ outcome: 'failed', details: { errorCode: 'INTERNAL_ERROR' } }]);
    expect(await entryFor(new Error('boom'), failedWithCode)).toEqual([{ outcome: 'failed', details: { errorCode: 'INTERNAL_ERROR' } }]);
  });

  it('enters the attempt as pending before the change runs', async () => {
    const { log, entries } = trail();
    let seen: string | undefined;
    await audited(log, by, target, async () => void (seen = entries[0]?.outcome));
    expect(seen).toBe('pending');
    expect(entries.map((entry) => entry.outcome)).toEqual(['success']);
  });

  it('makes no change when the attempt cannot be entered', async () => {
    const log = { begin: () => Promise.reject(new Error('trail down')), complete: async () => undefined } as unknown as AuditLog;
    let changed = false;
    await expect(audited(log, by, target, async () => void (changed = true))).rejects.toThrow('trail down');
    expect(changed).toBe(false);
  });
});
