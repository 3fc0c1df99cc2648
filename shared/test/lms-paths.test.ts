import { describe, expect, it } from 'vitest';
import {
  NEW_QUIZ_AUTHORING_SEGMENTS,
  classicQuizPath,
  classicQuizTakePath,
  isNewQuizAuthoringPath,
  lmsProofOrigin,
  matchAssessmentPage,
  matchAssessmentPath,
  matchClassicQuizResultPath,
  matchClassicQuizTakePath,
  matchLmsPage,
  matchNewQuizAssignmentPath,
  newQuizAssignmentPath,
  parseAssessmentUrl,
} from '../src/lms-paths.js';

const LMS = 'https://canvas.example.edu';

describe('page paths', () => {
  it('matches the classic quiz take route', () => {
    expect(matchClassicQuizTakePath('/courses/1234/quizzes/512/take')).toEqual({
      kind: 'classic-take',
      courseId: '1234',
      quizId: '512',
      contentId: 'classicquiz_512',
    });
    expect(matchClassicQuizTakePath('/courses/1234/quizzes/512/take/')?.quizId).toBe('512');
  });

  it('matches a quiz shown one question at a time as its take page (Canvas `take/questions/:question_id`)', () => {
    expect(matchClassicQuizTakePath('/courses/1234/quizzes/512/take/questions/7')).toEqual({
      kind: 'classic-take',
      courseId: '1234',
      quizId: '512',
      contentId: 'classicquiz_512',
      questionId: '7',
    });
    expect(matchAssessmentPath('/courses/1234/quizzes/512/take/questions/7/')?.contentId).toBe('classicquiz_512');
    expect(matchLmsPage('/courses/1/quizzes/2/take/questions/3')?.kind).toBe('classic-take');
    for (const path of [
      '/courses/1/quizzes/2/take/questions',
      '/courses/1/quizzes/2/take/questions/03',
      '/courses/1/quizzes/2/take/questions/x',
      '/courses/1/quizzes/2/take/questions/3/edit',
      '/courses/1/quizzes/2/take/question/3',
      '/courses/1/quizzes/2/take/questions//3',
      '/courses/1/quizzes/2/take/questions/3/..',
    ]) {
      expect(matchLmsPage(path), path).toBeNull();
    }
  });

  it('matches the new quiz assignment route', () => {
    expect(matchNewQuizAssignmentPath('/courses/1234/assignments/9901')).toEqual({
      kind: 'newquiz-assignment',
      courseId: '1234',
      assignmentId: '9901',
      contentId: 'newquiz:1234:9901',
    });
  });

  it('matches the classic quiz result page separately from assessment pages', () => {
    expect(matchClassicQuizResultPath('/courses/1/quizzes/2')).toEqual({
      kind: 'classic-result',
      courseId: '1',
      quizId: '2',
      contentId: 'classicquiz_2',
    });
    expect(matchAssessmentPath('/courses/1/quizzes/2')).toBeNull();
    expect(matchLmsPage('/courses/1/quizzes/2')?.kind).toBe('classic-result');
    expect(matchLmsPage('/courses/1/quizzes/2/take')?.kind).toBe('classic-take');
    expect(matchLmsPage('/courses/1/assignments/2')?.kind).toBe('newquiz-assignment');
  });

  it('skips new quiz authoring paths', () => {
    for (const section of NEW_QUIZ_AUTHORING_SEGMENTS) {
      const path = `/courses/1/assignments/2/${section}`;
      expect(isNewQuizAuthoringPath(path), path).toBe(true);
      expect(isNewQuizAuthoringPath(`${path}/deeper/path`), path).toBe(true);
      expect(matchAssessmentPath(path), path).toBeNull();
      expect(matchLmsPage(`${path}/`), path).toBeNull();
    }
    expect(isNewQuizAuthoringPath('/courses/1/assignments/2')).toBe(false);
    expect(isNewQuizAuthoringPath('/courses/1/assignments/2/edit')).toBe(false);
  });

  it('rejects other LMS pages', () => {
    const others = [
      '/',
      '/courses',
      '/courses/1',
      '/courses/1/quizzes',
      '/courses/1/quizzes/2/edit',
      '/courses/1/quizzes/2/history',
      '/courses/1/quizzes/2/submissions',
      '/courses/1/assignments',
      '/courses/1/assignments/2/edit',
      '/courses/1/assignments/2/submissions/3',
      '/courses/1/assignments/syllabus',
      '/courses/1/modules/items/2',
      '/api/v1/courses/1/quizzes/2/take',
      '/accounts/1/courses/1/quizzes/2/take',
    ];
    for (const path of others) expect(matchLmsPage(path), path).toBeNull();
  });

  it('rejects hostile spellings', () => {
    const hostile = [
      '/courses/01/quizzes/2/take',
      '/courses/1/quizzes/02/take',
      '/courses/0/quizzes/2/take',
      '/courses/-1/quizzes/2/take',
      '/courses/1/quizzes/99999999999999999999/take',
      '/courses/１/quizzes/2/take',
      '/courses/1/quizzes/٢/take',
      '/courses/%31/quizzes/2/take',
      '/courses/1/quizzes/2%2Ftake',
      '/courses/1/quizzes/2/Take',
      '/Courses/1/quizzes/2/take',
      '/courses/1/quizzes/2/take//',
      '//courses/1/quizzes/2/take',
      '/courses//1/quizzes/2/take',
      '/courses/1/quizzes/2/./take',
      '/courses/1/quizzes/3/../2/take',
      '/courses/1/quizzes/2/take/..',
      'courses/1/quizzes/2/take',
      '/courses/1/quizzes/2/take?x=1',
      '/courses/1/quizzes/2/take#x',
      '/courses/1/assignments/2?x',
      ' /courses/1/assignments/2',
      `/courses/1/assignments/2${'/'.repeat(600)}`,
      `/courses/${'1'.repeat(600)}/assignments/2`,
    ];
    for (const path of hostile) expect(matchLmsPage(path), path).toBeNull();
  });

  it('builds the paths it matches', () => {
    expect(classicQuizPath('1', '2')).toBe('/courses/1/quizzes/2');
    expect(classicQuizTakePath('1', '2')).toBe('/courses/1/quizzes/2/take');
    expect(newQuizAssignmentPath('1', '2')).toBe('/courses/1/assignments/2');
    expect(matchClassicQuizTakePath(classicQuizTakePath('1', '2'))).not.toBeNull();
    expect(() => classicQuizTakePath('1', '../2')).toThrow(RangeError);
  });
});

describe('lmsProofOrigin', () => {
  it('takes the origin of an HTTPS LMS URL', () => {
    expect(lmsProofOrigin('https://canvas.example.edu')).toBe(LMS);
    expect(lmsProofOrigin('https://canvas.example.edu/')).toBe(LMS);
    expect(lmsProofOrigin('https://Canvas.Example.edu:443/path')).toBe(LMS);
  });

  it('refuses plain HTTP unless a loopback development LMS is allowed', () => {
    expect(lmsProofOrigin('http://canvas.example.edu')).toBeNull();
    expect(lmsProofOrigin('http://localhost:3100')).toBeNull();
    expect(lmsProofOrigin('http://localhost:3100', { allowHttpLoopback: true })).toBe('http://localhost:3100');
    expect(lmsProofOrigin('http://127.0.0.1:3100', { allowHttpLoopback: true })).toBe('http://127.0.0.1:3100');
    expect(lmsProofOrigin('http://canvas.example.edu', { allowHttpLoopback: true })).toBeNull();
    expect(lmsProofOrigin('not a url')).toBeNull();
    expect(lmsProofOrigin('https://user:pw@canvas.example.edu')).toBeNull();
  });
});

describe('parseAssessmentUrl', () => {
  it('parses the take page with the query the LMS adds', () => {
    expect(parseAssessmentUrl(`${LMS}/courses/1234/quizzes/512/take?user_id=55`, LMS)?.contentId).toBe('classicquiz_512');
    expect(parseAssessmentUrl(`${LMS}/courses/1234/assignments/9901`, LMS)?.contentId).toBe('newquiz:1234:9901');
  });

  it('does not treat the result page as an assessment page', () => {
    expect(parseAssessmentUrl(`${LMS}/courses/1234/quizzes/512`, LMS)).toBeNull();
  });
});

describe('matchAssessmentPage', () => {
  const classic = { lmsOrigin: LMS, courseId: '1234', contentId: 'classicquiz_512' };
  const newQuiz = { lmsOrigin: LMS, courseId: '1234', contentId: 'newquiz:1234:9901' };

  it('accepts the classic take page and the new quiz page of the course and content id', () => {
    expect(matchAssessmentPage(`${LMS}/courses/1234/quizzes/512/take`, classic)).toBe(true);
    expect(matchAssessmentPage(`${LMS}/courses/1234/quizzes/512/take?user_id=55`, classic)).toBe(true);
    expect(matchAssessmentPage(`${LMS}/courses/1234/quizzes/512/take?preview=1`, classic)).toBe(true);
    expect(matchAssessmentPage(`${LMS}/courses/1234/quizzes/512/take/`, classic)).toBe(true);
    expect(matchAssessmentPage(`${LMS}/courses/1234/quizzes/512/take/questions/7`, classic)).toBe(true);
    expect(matchAssessmentPage(`${LMS}/courses/1234/quizzes/513/take/questions/7`, classic)).toBe(false);
    expect(matchAssessmentPage(`${LMS}/courses/1234/assignments/9901`, newQuiz)).toBe(true);
    expect(matchAssessmentPage(`${LMS}/courses/1234/assignments/9901?module_item_id=3`, newQuiz)).toBe(true);
  });

  it('accepts a configured LMS URL with a trailing slash or path', () => {
    expect(matchAssessmentPage(`${LMS}/courses/1234/quizzes/512/take`, { ...classic, lmsOrigin: `${LMS}/` })).toBe(true);
    expect(matchAssessmentPage(`${LMS}/courses/1234/quizzes/512/take`, { ...classic, lmsOrigin: `${LMS}/login` })).toBe(true);
  });

  it('rejects another course, quiz or kind', () => {
    expect(matchAssessmentPage(`${LMS}/courses/1235/quizzes/512/take`, classic)).toBe(false);
    expect(matchAssessmentPage(`${LMS}/courses/1234/quizzes/513/take`, classic)).toBe(false);
    expect(matchAssessmentPage(`${LMS}/courses/1234/assignments/512`, classic)).toBe(false);
    expect(matchAssessmentPage(`${LMS}/courses/1234/quizzes/9901/take`, newQuiz)).toBe(false);
    expect(matchAssessmentPage(`${LMS}/courses/1234/assignments/9901`, { ...newQuiz, courseId: '1' })).toBe(false);
    expect(matchAssessmentPage(`${LMS}/courses/1/assignments/9901`, { ...newQuiz, contentId: 'newquiz:1:9901', courseId: '1234' })).toBe(false);
  });

  it('rejects non-canonical expected values', () => {
    const url = `${LMS}/courses/1234/quizzes/512/take`;
    expect(matchAssessmentPage(url, { ...classic, contentId: '512' })).toBe(false);
    expect(matchAssessmentPage(url, { ...classic, contentId: 'classicquiz_0512' })).toBe(false);
    expect(matchAssessmentPage(url, { ...classic, courseId: '01234' })).toBe(false);
  });

  it('rejects the result page, authoring pages and other pages', () => {
    expect(matchAssessmentPage(`${LMS}/courses/1234/quizzes/512`, classic)).toBe(false);
    for (const section of NEW_QUIZ_AUTHORING_SEGMENTS) {
      expect(matchAssessmentPage(`${LMS}/courses/1234/assignments/9901/${section}`, newQuiz), section).toBe(false);
    }
  });

  it('rejects other origins, plain HTTP and look-alike hosts', () => {
    const path = '/courses/1234/quizzes/512/take';
    for (const url of [
      `http://canvas.example.edu${path}`,
      `https://canvas.example.edu:8443${path}`,
      `https://evil.example${path}`,
      `https://canvas.example.edu.evil.example${path}`,
      `https://evilcanvas.example.edu${path}`,
      `https://user:pw@canvas.example.edu${path}`,
      `https://canvas.example.edu@evil.example${path}`,
      `wss://canvas.example.edu${path}`,
      `//canvas.example.edu${path}`,
      path,
    ]) {
      expect(matchAssessmentPage(url, classic), url).toBe(false);
    }
  });

  it('rejects an LMS origin that is not HTTPS', () => {
    const url = 'http://canvas.example.edu/courses/1234/quizzes/512/take';
    expect(matchAssessmentPage(url, { ...classic, lmsOrigin: 'http://canvas.example.edu' })).toBe(false);
    expect(matchAssessmentPage(url, { ...classic, lmsOrigin: 'http://canvas.example.edu', allowHttpLoopback: true })).toBe(false);
  });

  it('accepts a loopback development LMS only when allowed', () => {
    const dev = 'http://localhost:3100';
    const url = `${dev}/courses/1234/quizzes/512/take`;
    expect(matchAssessmentPage(url, { ...classic, lmsOrigin: dev })).toBe(false);
    expect(matchAssessmentPage(url, { ...classic, lmsOrigin: dev, allowHttpLoopback: true })).toBe(true);
  });

  it('rejects fragments, traversal and non-canonical spellings', () => {
    for (const url of [
      `${LMS}/courses/1234/quizzes/512/take#top`,
      `${LMS}/courses/1234/quizzes/512/take#`,
      `${LMS}/courses/1234/quizzes/999/../512/take`,
      `${LMS}/courses/1234/quizzes/512/take/..`,
      `${LMS}/courses/1234/quizzes/%35%31%32/take`,
      `${LMS}/courses/1234/quizzes/512%2Ftake`,
      `${LMS}/courses/1234/quizzes/512/take%3Fx`,
      `${LMS}/COURSES/1234/quizzes/512/take`,
      'https://CANVAS.example.edu/courses/1234/quizzes/512/take',
      'https://canvas.example.edu:443/courses/1234/quizzes/512/take',
      `${LMS}\\courses\\1234\\quizzes\\512\\take`,
      ` ${LMS}/courses/1234/quizzes/512/take`,
      `${LMS}/courses/1234/quizzes/512/take `,
      `${LMS}/courses/1234/quizzes/512/take\n`,
      `${LMS}/courses/1234/quizzes/５１２/take`,
      `${LMS}/courses/1234/quizzes/0512/take`,
      `${LMS}/courses/1234/quizzes/512/take?${'x'.repeat(5000)}`,
      'javascript:alert(1)',
      '',
    ]) {
      expect(matchAssessmentPage(url, classic), JSON.stringify(url)).toBe(false);
    }
  });

  it('never throws on values that are not strings', () => {
    expect(matchAssessmentPage(undefined as unknown as string, classic)).toBe(false);
    expect(matchAssessmentPage(`${LMS}/courses/1234/quizzes/512/take`, { ...classic, lmsOrigin: 42 as unknown as string })).toBe(false);
  });
});
