import { describe, expect, it } from 'vitest';
import { captureFormOperations, fillAndSubmit, findAccessCodePrompt, type PromptPage } from '../src/access-code-prompt.js';
import { ACCESS_CODE_PAGE, LMS, asDomWindow, createWindow, recordingForms } from './support.js';

const TAKE_URL = `${LMS}/courses/1234/quizzes/512/take?user_id=55`;
const PAGE: PromptPage = { href: TAKE_URL, origin: LMS, courseId: '1234', quizId: '512' };

const find = (html: string) => findAccessCodePrompt(asDomWindow(createWindow(TAKE_URL, html)).document, PAGE);

describe('findAccessCodePrompt', () => {
  it('finds the LMS prompt', () => {
    const prompt = find(ACCESS_CODE_PAGE());
    expect(prompt?.input.id).toBe('quiz_access_code');
    expect(prompt?.form.classList.contains('access_code_form')).toBe(true);
  });

  it('accepts an absolute action, a form without action, and a text field', () => {
    expect(find(ACCESS_CODE_PAGE(TAKE_URL))).not.toBeNull();
    expect(find(ACCESS_CODE_PAGE('/courses/1234/quizzes/512/take'))).not.toBeNull();
    expect(find(ACCESS_CODE_PAGE().replace(/ action="[^"]*"/, ''))).not.toBeNull();
    expect(find(ACCESS_CODE_PAGE().replace('type="password"', 'type="text"'))).not.toBeNull();
  });

  it('ignores pages without the prompt', () => {
    expect(find('<p>Quiz</p>')).toBeNull();
    expect(find('<form class="access_code_form" method="post"></form>')).toBeNull();
    expect(find('<input id="quiz_access_code" name="access_code">')).toBeNull();
  });

  it('refuses two prompts', () => {
    expect(find(ACCESS_CODE_PAGE() + ACCESS_CODE_PAGE())).toBeNull();
  });

  it('refuses a second field with the same id anywhere on the page', () => {
    expect(find(`${ACCESS_CODE_PAGE()}<input id="quiz_access_code">`)).toBeNull();
  });

  it('refuses a second access_code control inside the form', () => {
    expect(find(ACCESS_CODE_PAGE().replace('<button', '<input type="hidden" name="access_code" value="x"><button'))).toBeNull();
  });

  it('refuses a field with another id or name', () => {
    expect(find(ACCESS_CODE_PAGE().replace('name="access_code"', 'name="code"'))).toBeNull();
    expect(find(ACCESS_CODE_PAGE().replace('id="quiz_access_code"', 'id="other"'))).toBeNull();
  });

  it('refuses forms that post elsewhere', () => {
    for (const action of [
      'https://evil.example/courses/1234/quizzes/512/take',
      '//evil.example/courses/1234/quizzes/512/take',
      'http://canvas.example.edu/courses/1234/quizzes/512/take',
      '/courses/1234/quizzes/513/take',
      '/courses/1235/quizzes/512/take',
      '/courses/1234/quizzes/512',
      '/courses/1234/quizzes/512/take#x',
      '/login',
      'javascript:void(0)',
    ]) {
      expect(find(ACCESS_CODE_PAGE(action)), action).toBeNull();
    }
  });

  it('refuses a form that does not post', () => {
    expect(find(ACCESS_CODE_PAGE().replace('method="post"', 'method="get"'))).toBeNull();
    expect(find(ACCESS_CODE_PAGE().replace(' method="post"', ''))).toBeNull();
  });

  it('refuses a field owned by another form, disabled, read-only or hidden', () => {
    expect(find(ACCESS_CODE_PAGE().replace('id="quiz_access_code"', 'id="quiz_access_code" form="other"'))).toBeNull();
    expect(find(ACCESS_CODE_PAGE().replace('id="quiz_access_code"', 'id="quiz_access_code" disabled'))).toBeNull();
    expect(find(ACCESS_CODE_PAGE().replace('id="quiz_access_code"', 'id="quiz_access_code" readonly'))).toBeNull();
    expect(find(ACCESS_CODE_PAGE().replace('type="password"', 'type="hidden"'))).toBeNull();
  });

  it('reads attributes, so controls named action or method cannot redirect the check', () => {
    const html = ACCESS_CODE_PAGE('https://evil.example/take').replace(
      '<button',
      '<input type="hidden" name="action" value="/courses/1234/quizzes/512/take"><button',
    );
    expect(find(html)).toBeNull();
  });
});

describe('fillAndSubmit', () => {
  it('sets the value and submits the form once', () => {
    const prompt = find(ACCESS_CODE_PAGE());
    const forms = recordingForms();
    fillAndSubmit(prompt!, 'c0de', forms);
    expect(prompt!.input.value).toBe('c0de');
    expect(forms.submitted).toBe(1);
  });

  it('uses the prototype operations captured at start, not what the page patches later', () => {
    const win = createWindow(TAKE_URL, ACCESS_CODE_PAGE());
    const dom = asDomWindow(win);
    const submitted: HTMLFormElement[] = [];
    const proto = (win as unknown as { HTMLFormElement: { prototype: HTMLFormElement } }).HTMLFormElement.prototype;
    proto.submit = function submit(this: HTMLFormElement) {
      submitted.push(this);
    };
    const ops = captureFormOperations(dom);
    expect(ops).not.toBeNull();
    const prompt = findAccessCodePrompt(dom.document, PAGE)!;
    let patched = false;
    prompt.form.submit = () => {
      patched = true;
    };
    fillAndSubmit(prompt, 'secret', ops!);
    expect(prompt.input.value).toBe('secret');
    expect(submitted).toEqual([prompt.form]);
    expect(patched).toBe(false);
  });
});
