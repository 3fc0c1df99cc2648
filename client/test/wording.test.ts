import { beforeAll, describe, expect, it } from 'vitest';
import { EXB_POLICY_LIMITS } from '@exb/shared/exb-policy.js';
import { ErrorCodes } from '@exb/shared/error-codes.js';
import { errorMessage } from '../src/lib/error-message';
import { courseFailureReason } from '../src/views/admin/failure-reasons';
import { describeEntry, failureReason, type HistoryEntry } from '../src/views/admin/presets/model';
import { readDifferentlyReason } from '../src/lib/read-differently';
import { verificationReasonText } from '../src/lib/verification-reasons';
import { catalogue, startEnglish } from './support/i18n';

beforeAll(startEnglish);

const { admin, teacher, errors } = catalogue;

describe('errorMessage', () => {
  it('says a contract code in the catalogue’s words, and nothing for anything else', () => {
    expect(errorMessage(ErrorCodes.NOT_FOUND)).toBe(errors.NOT_FOUND);
    for (const value of ['not_found', 'NOT_A_CODE', '', 'toString', undefined, null, 404, {}]) expect(errorMessage(value), String(value)).toBeUndefined();
  });
});

describe('courseFailureReason', () => {
  it('has words for the codes a course’s own answer carries', () => {
    expect(courseFailureReason(ErrorCodes.COURSE_RESET_IN_PROGRESS, 'fallback')).toBe(admin.failure.resetInProgress);
    expect(courseFailureReason(ErrorCodes.LMS_AUTHORIZATION_REQUIRED, 'fallback')).toBe(admin.failure.authorizationRequired);
  });

  it('counts the catalogue limit into a full catalogue', () => {
    expect(courseFailureReason(ErrorCodes.CATALOG_FULL, 'fallback')).toBe(admin.failure.catalogFull_other.replace('{{count}}', String(EXB_POLICY_LIMITS.catalogTools)));
  });

  it('says any other LMS code as the LMS’s failure, and the fallback for the rest, prototype names included', () => {
    expect(courseFailureReason('LMS_SOMETHING_NEW', 'fallback')).toBe(admin.failure.lms);
    for (const code of ['SOMETHING_ELSE', 'toString', '__proto__', '', null, undefined]) expect(courseFailureReason(code, 'fallback'), String(code)).toBe('fallback');
  });

  it('falls back to "not updated" in the presets’ failure list', () => {
    expect(failureReason(null)).toBe(admin.failure.notUpdated);
    expect(failureReason(ErrorCodes.COURSE_UPDATE_IN_PROGRESS)).toBe(admin.failure.updateInProgress);
  });
});

describe('describeEntry of a preset’s history', () => {
  const entry = (action: string, details: Record<string, unknown>, courseId: string | null = null) => ({ action, details, courseId }) as unknown as HistoryEntry;
  const h = admin.presets.history;

  it('names a known action, and shows an unknown one as recorded', () => {
    expect(describeEntry(entry('tool-preset.create', {}))).toBe(h.action.created);
    expect(describeEntry(entry('tool-preset.someday', {}))).toBe('tool-preset.someday');
    expect(describeEntry(entry('constructor', {}))).toBe('constructor');
  });

  it('lists changed fields in words, keeping a field it does not know by its name', () => {
    const line = describeEntry(entry('tool-preset.update', { changedFields: ['tool.url', 'name', 'tool.secret'] }));
    expect(line).toBe(`${h.action.changed} (fields: ${h.field.toolUrl}, ${h.field.name}, tool.secret)`);
  });

  it('tells an assignment with its course and status, and leaves an unknown status as recorded', () => {
    expect(describeEntry(entry('tool-preset.assign', { assigned: false, status: 'failed' }, '101'))).toBe(`${h.action.assignedOne} (${h.unassign}; course 101; ${admin.presets.status.failed})`);
    expect(describeEntry(entry('tool-preset.assign', { assigned: true, status: 'exploded' }, null))).toBe(`${h.action.assignedOne} (${h.assign}; exploded)`);
  });

  it('counts a pass, and shows "?" for a count that is not a number', () => {
    expect(describeEntry(entry('tool-preset.reconcile', { processed: 3, applied: 2, failed: 1, pending: 'many' }))).toBe(
      `${h.action.rolloutPass} (2 applied, 1 failed, ? pending)`,
    );
  });

  it('mentions requeued courses only when there are some, singular or plural', () => {
    expect(describeEntry(entry('tool-preset.rollout', { queued: 1200, requeued: 0 }))).toBe(`${h.action.rolloutStarted} (1,200 queued)`);
    expect(describeEntry(entry('tool-preset.rollout', { requeued: 1 }))).toBe(`${h.action.rolloutStarted} (1 course to update)`);
    expect(describeEntry(entry('tool-preset.rollout', { requeued: 2 }))).toBe(`${h.action.rolloutStarted} (2 courses to update)`);
  });
});

describe('verificationReasonText', () => {
  it('finds the stored English sentence’s key, and shows a reason worded otherwise as it came', () => {
    expect(verificationReasonText(teacher.verification.reason.grantExpired)).toBe(teacher.verification.reason.grantExpired);
    expect(verificationReasonText('grantExpired')).toBe('grantExpired');
    expect(verificationReasonText('')).toBe('');
  });
});

describe('readDifferentlyReason', () => {
  it('is null for an exact address the exam browser reads as that one page, and for what is no https address', () => {
    expect(readDifferentlyReason('https://a.example/page')).toBeNull();
    expect(readDifferentlyReason('not an address')).toBeNull();
    expect(readDifferentlyReason('http://a.example/page')).toBeNull();
  });

  it('explains a site root, unless the tool itself chose one', () => {
    expect(readDifferentlyReason('https://a.example/')).toBe(catalogue.policy.rule.wholeHost);
    expect(readDifferentlyReason('https://a.example/', { withSiteRoot: true })).toBeNull();
  });

  it('explains an address the filter cannot match as that one page, also for a tool', () => {
    expect(readDifferentlyReason('https://a.example/a%2Ab', { withSiteRoot: true })).toBe(catalogue.policy.rule.wildcardEscape);
    expect(readDifferentlyReason('https://a.example/a+b')).toBe(catalogue.policy.rule.neverMatches);
  });

  it('leaves an address the save refuses outright to the save (it is no exact address at all)', () => {
    expect(readDifferentlyReason('https://a.example/a*b')).toBeNull();
  });
});
