import { describe, expect, it } from 'vitest';
import type { CapturedAssessment, EnforcedAssessment } from '../../../src/domain/course-reset/model.js';
import { localRecordsOf } from '../../../src/domain/course-reset/local-records.js';
import { isConfirmed, isEnforced, listingIdentity, newQuizCode, previewOf, removals } from '../../../src/domain/course-reset/reset-rules.js';

const classic: EnforcedAssessment = { id: 'classicquiz_201', title: 'Midterm', contentType: 'CLASSIC_QUIZ', lmsAssessmentId: '201' };
const newQuiz: EnforcedAssessment = { id: 'newquiz:101:301', title: 'Final', contentType: 'NEW_QUIZ', lmsAssessmentId: '301' };

describe('isConfirmed', () => {
  it('accepts exactly the course id as a string', () => {
    expect(isConfirmed('101', '101')).toBe(true);
    for (const value of [undefined, null, 101, '', ' 101', '101 ', '0101', '102', ['101']]) expect(isConfirmed(value, '101')).toBe(false);
  });
});

describe('isEnforced', () => {
  it('counts a setting that requires the exam browser, is on, or still holds a code', () => {
    expect(isEnforced({ exbRequired: false, enabled: false, hasAccessCode: false })).toBe(false);
    expect(isEnforced({ exbRequired: true, enabled: false, hasAccessCode: false })).toBe(true);
    expect(isEnforced({ exbRequired: false, enabled: true, hasAccessCode: false })).toBe(true);
    expect(isEnforced({ exbRequired: false, enabled: false, hasAccessCode: true })).toBe(true);
  });
});

describe('listingIdentity', () => {
  const listing = {
    quizzes: [{ id: '201' }],
    assignments: [
      { id: '301', isNewQuiz: true, courseId: '101' },
      { id: '302', isNewQuiz: false, courseId: '101' },
      { id: '303', isNewQuiz: true, courseId: '102' },
    ],
  };
  it('identifies listed classic quizzes and new quizzes of the course', () => {
    expect(listingIdentity(classic, '101', listing)).toBe('listed');
    expect(listingIdentity(newQuiz, '101', listing)).toBe('listed');
    expect(listingIdentity({ ...newQuiz, lmsAssessmentId: '301' }, '101', { ...listing, assignments: [{ id: '301', isNewQuiz: true, courseId: null }] })).toBe('listed');
  });
  it('leaves assessments the listing does not name to their own read', () => {
    expect(listingIdentity({ ...classic, lmsAssessmentId: '299' }, '101', listing)).toBe('unlisted');
    expect(listingIdentity({ ...newQuiz, lmsAssessmentId: '399' }, '101', listing)).toBe('unlisted');
  });
  it('finds no new-quiz identity for an assignment listed as something else, or in another course', () => {
    expect(listingIdentity({ ...newQuiz, lmsAssessmentId: '302' }, '101', listing)).toBe('unidentified');
    expect(listingIdentity({ ...newQuiz, lmsAssessmentId: '303' }, '101', listing)).toBe('unidentified');
  });
});

describe('newQuizCode', () => {
  it('counts only a required code', () => {
    expect(newQuizCode({ requireStudentAccessCode: true, studentAccessCode: 'x1' })).toBe('x1');
    expect(newQuizCode({ requireStudentAccessCode: false, studentAccessCode: 'x1' })).toBeNull();
    expect(newQuizCode({ requireStudentAccessCode: true, studentAccessCode: null })).toBeNull();
  });
});

describe('removals and the preview', () => {
  const enforced: CapturedAssessment[] = [
    { ...classic, state: 'code', code: 'secret-a' },
    { ...newQuiz, state: 'no-code', code: null },
    { ...classic, id: 'classicquiz_202', lmsAssessmentId: '202', state: 'gone', code: null },
  ];
  const plan = {
    courseId: '101',
    courseName: 'Biology',
    assessments: [
      { id: 'classicquiz_201', title: 'Midterm', contentType: 'CLASSIC_QUIZ' as const },
      { id: 'classicquiz_202', title: 'Quiz', contentType: 'CLASSIC_QUIZ' as const },
      { id: 'classicquiz_203', title: 'Other', contentType: 'CLASSIC_QUIZ' as const },
      { id: 'newquiz:101:301', title: 'Final', contentType: 'NEW_QUIZ' as const },
    ],
    enforced,
  };
  it('removes only codes the LMS holds', () => {
    expect(removals(plan).map((assessment) => assessment.id)).toEqual(['classicquiz_201']);
  });
  it('previews every assessment with what happens to it in the LMS, and never a code', () => {
    const preview = previewOf(plan);
    expect(preview).toMatchObject({ assessmentsCleared: 4, accessCodesRemoved: 1 });
    expect(preview.assessments.map((assessment) => [assessment.id, assessment.enforced, assessment.lms])).toEqual([
      ['classicquiz_201', true, 'code'],
      ['classicquiz_202', true, 'gone'],
      ['classicquiz_203', false, null],
      ['newquiz:101:301', true, 'no-code'],
    ]);
    expect(JSON.stringify(preview)).not.toContain('secret-a');
  });
});

describe('localRecordsOf', () => {
  it('joins the cache and the settings in code point order, naming records discovery dropped by their id', () => {
    const records = localRecordsOf(
      '101',
      [
        { contentId: 'newquiz:101:301', title: 'Final' },
        { contentId: 'classicquiz_204', title: 'Lab' },
      ],
      [
        { contentId: 'classicquiz_201', exbRequired: true, enabled: true, hasAccessCode: true },
        { contentId: 'classicquiz_204', exbRequired: false, enabled: false, hasAccessCode: false },
        { contentId: 'newquiz:101:301', exbRequired: false, enabled: false, hasAccessCode: true },
      ],
    );
    expect(records.assessments.map((assessment) => [assessment.id, assessment.title])).toEqual([
      ['classicquiz_201', 'Quiz 201'],
      ['classicquiz_204', 'Lab'],
      ['newquiz:101:301', 'Final'],
    ]);
    expect(records.enforced.map((assessment) => [assessment.id, assessment.contentType, assessment.lmsAssessmentId])).toEqual([
      ['classicquiz_201', 'CLASSIC_QUIZ', '201'],
      ['newquiz:101:301', 'NEW_QUIZ', '301'],
    ]);
    expect(records.unidentified).toEqual([]);
  });

  it('sets apart enforced records whose id names no LMS assessment of the course', () => {
    const records = localRecordsOf('101', [], [
      { contentId: 'classicquiz_legacy', exbRequired: true, enabled: true, hasAccessCode: false },
      { contentId: 'newquiz:102:303', exbRequired: true, enabled: true, hasAccessCode: true },
      { contentId: 'classicquiz_legacy2', exbRequired: false, enabled: false, hasAccessCode: false },
    ]);
    expect(records.unidentified.map((assessment) => [assessment.id, assessment.contentType])).toEqual([
      ['classicquiz_legacy', 'CLASSIC_QUIZ'],
      ['newquiz:102:303', 'NEW_QUIZ'],
    ]);
    expect(records.enforced).toEqual([]);
    expect(records.assessments).toHaveLength(3);
  });
});
