/**
 * The LMS access-code prompt on the classic quiz take page:
 *   <form class="access_code_form" action="<take URL>" method="post"> … <input id="quiz_access_code" name="access_code">
 * The code is filled in only when exactly one such form holds exactly one such field and the form posts back to this
 * quiz's take page on the LMS origin, so a look-alike form elsewhere on the page never receives the code.
 */
import { matchClassicQuizTakePath } from '@exb/shared/lms-paths.js';

export interface AccessCodePrompt {
  readonly form: HTMLFormElement;
  readonly input: HTMLInputElement;
}

export interface PromptPage {
  /** The page URL without fragment. */
  readonly href: string;
  readonly origin: string;
  readonly courseId: string;
  readonly quizId: string;
}

const FILLABLE_TYPES = ['password', 'text', ''];

export function findAccessCodePrompt(doc: Document, page: PromptPage): AccessCodePrompt | null {
  const forms = doc.querySelectorAll('form.access_code_form');
  if (forms.length !== 1) return null;
  const form = forms[0];
  if (!isForm(form) || !postsToTakePage(form, page)) return null;

  // The id must be unique page-wide and the field the form's only `access_code` control.
  if (doc.querySelectorAll('#quiz_access_code').length !== 1) return null;
  const named = form.querySelectorAll('[name="access_code"]');
  if (named.length !== 1) return null;
  const input = named[0];
  if (!isInput(input) || input.id !== 'quiz_access_code') return null;
  if (input.hasAttribute('form') || input.disabled || input.readOnly) return null;
  if (!FILLABLE_TYPES.includes((input.getAttribute('type') ?? '').toLowerCase())) return null;
  return { form, input };
}

function isForm(element: Element | undefined): element is HTMLFormElement {
  return element !== undefined && element.tagName === 'FORM';
}

function isInput(element: Element | undefined): element is HTMLInputElement {
  return element !== undefined && element.tagName === 'INPUT';
}

function postsToTakePage(form: HTMLFormElement, page: PromptPage): boolean {
  // Attributes, not properties: a control named "action" or "method" would shadow the properties.
  if ((form.getAttribute('method') ?? '').toLowerCase() !== 'post') return false;
  const action = form.getAttribute('action');
  if (action === null || action.trim() === '') return true;
  let target: URL;
  try {
    target = new URL(action, page.href);
  } catch {
    return false;
  }
  const take = matchClassicQuizTakePath(target.pathname);
  return (
    target.origin === page.origin &&
    target.hash === '' &&
    take !== null &&
    take.courseId === page.courseId &&
    take.quizId === page.quizId
  );
}

/** DOM operations taken from the prototypes at start, so page code that patches an element cannot intercept them. */
export interface FormOperations {
  setValue(input: HTMLInputElement, value: string): void;
  submit(form: HTMLFormElement): void;
}

export function captureFormOperations(win: Window): FormOperations | null {
  const inputProto = (win as unknown as { HTMLInputElement?: { prototype: HTMLInputElement } }).HTMLInputElement?.prototype;
  const formProto = (win as unknown as { HTMLFormElement?: { prototype: HTMLFormElement } }).HTMLFormElement?.prototype;
  if (inputProto === undefined || formProto === undefined) return null;
  const setter = Object.getOwnPropertyDescriptor(inputProto, 'value')?.set;
  const submit = formProto.submit;
  if (typeof setter !== 'function' || typeof submit !== 'function') return null;
  return {
    setValue: (input, value) => setter.call(input, value),
    // The native submit keeps the form's hidden CSRF field and skips page submit handlers.
    submit: (form) => submit.call(form),
  };
}

export function fillAndSubmit(prompt: AccessCodePrompt, accessCode: string, ops: FormOperations): void {
  ops.setValue(prompt.input, accessCode);
  ops.submit(prompt.form);
}
