import { describe, expect, it } from 'vitest';
import type { AuditEntryInput, AuditLog } from '../../src/audit/audit-log.js';
import { audited, failedWithCode } from '../../src/audit/audited.js';
import { DomainError } from '../../src/domain-error.js';
import { LmsNotFoundError } from '../../src/lms/errors.js';
import { instructor } from '../support/sessions.js';

function trail() {
  const entries: AuditEntryInput[] = [];
  const log = { record: async (entry: AuditEntryInput) => void entries.push(entry) } as unknown as AuditLog;
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

  it('keeps the attempt’s own error when the trail cannot be written', async () => {
    const log = { record: () => Promise.reject(new Error('trail down')) } as unknown as AuditLog;
    const error = new DomainError('EXB_NOT_ENABLED', 'no');
    await expect(audited(log, by, target, () => Promise.reject(error))).rejects.toBe(error);
  });
});
