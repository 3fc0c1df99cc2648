import { describe, expect, it } from 'vitest';
import { hasClassicQuizResult, isNewQuizSubmitted, isSubmittedRecord, parseLmsJson } from '../src/completion.js';
import { ACCESS_CODE_PAGE, CLASSIC_RESULT_PAGE, LMS, asDomWindow, createWindow, fakeFetch, manualTimers } from './support.js';

const doc = (html: string) => asDomWindow(createWindow(`${LMS}/courses/1/quizzes/2`, html)).document;

describe('hasClassicQuizResult', () => {
  it('recognizes the LMS result structure', () => {
    expect(hasClassicQuizResult(doc(CLASSIC_RESULT_PAGE))).toBe(true);
  });

  it('recognizes the muted result notice', () => {
    const html = '<div id="quiz_show"><div class="muted-notice"><h3>Your quiz has been muted</h3></div></div>';
    expect(hasClassicQuizResult(doc(html))).toBe(true);
  });

  it('ignores a quiz page without a completed submission', () => {
    expect(hasClassicQuizResult(doc('<div id="quiz_show"><div class="take_quiz_button"></div></div>'))).toBe(false);
    expect(hasClassicQuizResult(doc('<p>nothing</p>'))).toBe(false);
  });

  it('ignores result markup that is not where the LMS renders it', () => {
    expect(hasClassicQuizResult(doc('<div class="quiz-submission"></div>'))).toBe(false);
    expect(hasClassicQuizResult(doc('<div id="quiz_show"><div class="user_content"><div class="quiz-submission"></div></div></div>'))).toBe(false);
    expect(hasClassicQuizResult(doc('<div id="quiz_show"><span class="quiz-submission"></span></div>'))).toBe(false);
  });

  it('refuses ambiguous or unfinished pages', () => {
    expect(hasClassicQuizResult(doc(CLASSIC_RESULT_PAGE + CLASSIC_RESULT_PAGE))).toBe(false);
    expect(hasClassicQuizResult(doc(CLASSIC_RESULT_PAGE.replace('<div id="module_sequence_footer">', '<div class="muted-notice"></div><div>')))).toBe(false);
    expect(hasClassicQuizResult(doc(`${CLASSIC_RESULT_PAGE}<form id="submit_quiz_form"></form>`))).toBe(false);
    expect(hasClassicQuizResult(doc(CLASSIC_RESULT_PAGE + ACCESS_CODE_PAGE()))).toBe(false);
  });
});

describe('new quiz submission record', () => {
  it('counts submitted, graded and pending-review records with a submission time', () => {
    for (const state of ['submitted', 'graded', 'pending_review']) {
      expect(isSubmittedRecord({ workflow_state: state, submitted_at: '2026-03-01T10:00:00Z' }), state).toBe(true);
    }
  });

  it('does not count unsubmitted records or grades without a submission', () => {
    expect(isSubmittedRecord({ workflow_state: 'unsubmitted', submitted_at: null })).toBe(false);
    expect(isSubmittedRecord({ workflow_state: 'graded', submitted_at: null })).toBe(false);
    expect(isSubmittedRecord({ workflow_state: 'submitted', submitted_at: '' })).toBe(false);
    expect(isSubmittedRecord(null)).toBe(false);
    expect(isSubmittedRecord([])).toBe(false);
  });

  it('parses JSON behind the LMS hijacking guard', () => {
    expect(parseLmsJson('while(1);{"a":1}')).toEqual({ a: 1 });
    expect(parseLmsJson('{"a":1}')).toEqual({ a: 1 });
  });

  it('reads the student own submission from the LMS with the LMS session', async () => {
    const url = `${LMS}/api/v1/courses/1/assignments/9/submissions/self`;
    const { fetch, requests } = fakeFetch({
      [`GET ${url}`]: () => ({ status: 200, text: 'while(1);{"workflow_state":"submitted","submitted_at":"2026-03-01T10:00:00Z"}' }),
    });
    expect(await isNewQuizSubmitted(fetch, manualTimers(), LMS, '1', '9')).toBe(true);
    expect(requests[0]?.credentials).toBe('same-origin');
    expect(await isNewQuizSubmitted(fetch, manualTimers(), LMS, '1', '8')).toBe(false);
  });
});
