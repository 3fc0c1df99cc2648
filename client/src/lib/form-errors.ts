import { useCallback, useRef } from 'react';
import { ErrorCodes } from '@exb/shared/error-codes.js';
import type { ServerError } from './trpc';
import type { SubmittedTool } from './policy-rows';

/**
 * Where a refusal of a save is shown. The server reports one problem at a time with the contract's `error_code` and,
 * for validated fields, the `path` into the submitted body; the key names the field (or, without a usable path, the
 * section) the message is shown next to.
 */
export interface FormError {
  readonly key: string | undefined;
  readonly message: string;
  readonly errorCode: string | undefined;
}

export const fieldKey = {
  ruleValue: (rowId: string) => `rule:${rowId}:value`,
  ruleConfirm: (rowId: string) => `rule:${rowId}:confirm`,
  /** A stored rule named by its value, from outside the form (a marked rule's "Change the rule"); the form finds its row. */
  storedRule: (value: string) => `stored-rule:${value}`,
  toolLabel: (rowId: string) => `tool:${rowId}:label`,
  toolUrl: (rowId: string) => `tool:${rowId}:url`,
  password: (which: 'start' | 'quit') => `password:${which}`,
  setupCompleted: () => 'setup:completed',
  section: (name: SectionName) => `section:${name}`,
};

export type SectionName = 'urlRules' | 'tools' | 'toolSelection' | 'quizTools' | 'passwords';

/** What was submitted, so indices in a server path can be followed back to the rows on screen. */
export interface Submission {
  readonly urlRules?: readonly string[];
  readonly toolLists?: Readonly<Partial<Record<'externalTools' | 'quizOnlyExternalTools', readonly SubmittedTool[]>>>;
}

const SECTION_BY_CODE: Readonly<Record<string, SectionName>> = {
  [ErrorCodes.INVALID_EXB_URL_POLICY]: 'urlRules',
  [ErrorCodes.INVALID_EXB_DOMAIN_POLICY]: 'urlRules',
  [ErrorCodes.INVALID_EXB_TOOL_POLICY]: 'tools',
  [ErrorCodes.INVALID_EXB_TOOL_SELECTION]: 'toolSelection',
  [ErrorCodes.QUIZ_TOOL_DEFINITIONS_NOT_ALLOWED]: 'quizTools',
};

function ruleKey(rowId: string | undefined, field: unknown): string | undefined {
  if (rowId === undefined) return undefined;
  return field === 'broadDomainConfirmed' ? fieldKey.ruleConfirm(rowId) : fieldKey.ruleValue(rowId);
}

function keyForPath(path: readonly (string | number)[], submission: Submission): string | undefined {
  const [head, index, field, ruleIndex, ruleField] = path;
  if (head === 'urlRules') {
    if (typeof index !== 'number') return fieldKey.section('urlRules');
    return ruleKey(submission.urlRules?.[index], field) ?? fieldKey.section('urlRules');
  }
  if (head === 'quitPassword' || head === 'startPassword') {
    return fieldKey.password(head === 'quitPassword' ? 'quit' : 'start');
  }
  if (head === 'externalToolIds') return fieldKey.section('toolSelection');
  if (head === 'setupCompleted') return fieldKey.setupCompleted();
  if (head === 'externalTools' || head === 'quizOnlyExternalTools') {
    const section: SectionName = head === 'externalTools' ? 'tools' : 'quizTools';
    const tool = typeof index === 'number' ? submission.toolLists?.[head]?.[index] : undefined;
    if (tool === undefined) return fieldKey.section(section);
    if (field === 'resourceRules') {
      return (typeof ruleIndex === 'number' ? ruleKey(tool.ruleRowIds[ruleIndex], ruleField) : undefined) ?? fieldKey.toolUrl(tool.rowId);
    }
    return field === 'label' ? fieldKey.toolLabel(tool.rowId) : fieldKey.toolUrl(tool.rowId);
  }
  return undefined;
}

export function locateError(error: ServerError, submission: Submission, fallbackSection?: SectionName): FormError {
  const byPath = error.path !== undefined ? keyForPath(error.path, submission) : undefined;
  const section = error.errorCode !== undefined && Object.hasOwn(SECTION_BY_CODE, error.errorCode) ? SECTION_BY_CODE[error.errorCode] : undefined;
  let key = byPath ?? (section !== undefined ? fieldKey.section(section) : undefined);
  // Tool errors of the assessment form belong to its own tools: the course catalog is not edited there.
  if (key === fieldKey.section('tools') && fallbackSection === 'quizTools') key = fieldKey.section('quizTools');
  return { key, message: error.message, errorCode: error.errorCode };
}

/** InstUI's error message for the field with `key`, if the error is about it. */
export function messagesFor(error: FormError | null, key: string) {
  return error !== null && error.key === key ? [{ type: 'newError' as const, text: error.message }] : undefined;
}

/**
 * Inputs by field key, so a refused save can move focus to the field the message is next to: keyboard and
 * screen-reader users land on the problem instead of searching for it.
 */
export function useFieldFocus() {
  const elements = useRef(new Map<string, HTMLElement>());
  const register = useCallback(
    (key: string) => (element: HTMLElement | null) => {
      if (element) elements.current.set(key, element);
      else elements.current.delete(key);
    },
    [],
  );
  const focus = useCallback((key: string | undefined) => {
    if (key === undefined) return false;
    const element = elements.current.get(key);
    if (!element) return false;
    element.focus();
    return true;
  }, []);
  return { register, focus };
}

export type FieldFocus = ReturnType<typeof useFieldFocus>;
