import { describe, expect, it } from 'vitest';
import { ErrorCodes } from '@exb/shared/error-codes.js';
import type { ServerError } from '../src/lib/trpc';
import { fieldKey, locateError, messagesFor, type Submission } from '../src/lib/form-errors';

function serverError(fields: Partial<ServerError>): ServerError {
  return { message: 'Refused.', errorCode: undefined, path: undefined, httpStatus: 400, authUrl: undefined, ...fields };
}

const submission: Submission = {
  urlRules: ['rule-a', 'rule-b'],
  toolLists: {
    quizOnlyExternalTools: [{ tool: {}, rowId: 'tool-q', ruleRowIds: ['rule-q0', 'rule-q1'] }],
    externalTools: [{ tool: {}, rowId: 'tool-c', ruleRowIds: [] }],
  },
};

const keyOf = (fields: Partial<ServerError>, fallback?: Parameters<typeof locateError>[2]) => locateError(serverError(fields), submission, fallback).key;

describe('locateError', () => {
  it('follows a rule index back to the row it was submitted from, blank rows left out', () => {
    expect(keyOf({ path: ['urlRules', 1, 'value'] })).toBe(fieldKey.ruleValue('rule-b'));
    expect(keyOf({ path: ['urlRules', 0, 'broadDomainConfirmed'] })).toBe(fieldKey.ruleConfirm('rule-a'));
  });

  it('falls back to the rules section for an index nothing was submitted at, or a path without an index', () => {
    expect(keyOf({ path: ['urlRules', 2, 'value'] })).toBe(fieldKey.section('urlRules'));
    expect(keyOf({ path: ['urlRules', '1', 'value'] })).toBe(fieldKey.section('urlRules'));
    expect(keyOf({ path: ['urlRules'] })).toBe(fieldKey.section('urlRules'));
    expect(locateError(serverError({ path: ['urlRules', 0, 'value'] }), {}).key).toBe(fieldKey.section('urlRules'));
  });

  it('names the password, the tool selection and the setup fields by their paths', () => {
    expect(keyOf({ path: ['quitPassword'] })).toBe(fieldKey.password('quit'));
    expect(keyOf({ path: ['startPassword'] })).toBe(fieldKey.password('start'));
    expect(keyOf({ path: ['externalToolIds', 3] })).toBe(fieldKey.section('toolSelection'));
    expect(keyOf({ path: ['setupCompleted'] })).toBe(fieldKey.setupCompleted());
  });

  it('leads a tool refusal to the tool row, its field, and its resource rule row', () => {
    expect(keyOf({ path: ['quizOnlyExternalTools', 0, 'label'] })).toBe(fieldKey.toolLabel('tool-q'));
    expect(keyOf({ path: ['quizOnlyExternalTools', 0, 'url'] })).toBe(fieldKey.toolUrl('tool-q'));
    expect(keyOf({ path: ['quizOnlyExternalTools', 0, 'resourceRules', 1, 'value'] })).toBe(fieldKey.ruleValue('rule-q1'));
    expect(keyOf({ path: ['quizOnlyExternalTools', 0, 'resourceRules', 1, 'broadDomainConfirmed'] })).toBe(fieldKey.ruleConfirm('rule-q1'));
    // A resource rule that was not submitted, or no index at all: the tool's address is the nearest field.
    expect(keyOf({ path: ['quizOnlyExternalTools', 0, 'resourceRules', 7] })).toBe(fieldKey.toolUrl('tool-q'));
    expect(keyOf({ path: ['quizOnlyExternalTools', 0, 'resourceRules'] })).toBe(fieldKey.toolUrl('tool-q'));
    expect(keyOf({ path: ['externalTools', 0, 'label'] })).toBe(fieldKey.toolLabel('tool-c'));
  });

  it('falls back to the tool list section for a tool that was not submitted', () => {
    expect(keyOf({ path: ['quizOnlyExternalTools', 4, 'label'] })).toBe(fieldKey.section('quizTools'));
    expect(keyOf({ path: ['externalTools'] })).toBe(fieldKey.section('tools'));
  });

  it('places a refusal without a usable path by its error code', () => {
    expect(keyOf({ errorCode: ErrorCodes.INVALID_EXB_DOMAIN_POLICY })).toBe(fieldKey.section('urlRules'));
    expect(keyOf({ errorCode: ErrorCodes.INVALID_EXB_URL_POLICY, path: ['somethingElse', 0] })).toBe(fieldKey.section('urlRules'));
    expect(keyOf({ errorCode: ErrorCodes.INVALID_EXB_TOOL_SELECTION })).toBe(fieldKey.section('toolSelection'));
    expect(keyOf({ errorCode: ErrorCodes.QUIZ_TOOL_DEFINITIONS_NOT_ALLOWED })).toBe(fieldKey.section('quizTools'));
  });

  it('places nothing for a refusal it cannot place, and keeps the message and code', () => {
    const located = locateError(serverError({ message: 'The LMS is away.', errorCode: 'LMS_UNAVAILABLE', path: ['unknown'] }), submission);
    expect(located).toEqual({ key: undefined, message: 'The LMS is away.', errorCode: 'LMS_UNAVAILABLE' });
    expect(keyOf({ errorCode: 'toString' })).toBeUndefined();
  });

  it("moves a tool refusal to the assessment's own tools when the form has no course catalogue", () => {
    expect(keyOf({ errorCode: ErrorCodes.INVALID_EXB_TOOL_POLICY })).toBe(fieldKey.section('tools'));
    expect(keyOf({ errorCode: ErrorCodes.INVALID_EXB_TOOL_POLICY }, 'quizTools')).toBe(fieldKey.section('quizTools'));
    expect(keyOf({ path: ['externalTools', 9] }, 'quizTools')).toBe(fieldKey.section('quizTools'));
    // A field of a tool is not a section: it stays where it is.
    expect(keyOf({ path: ['externalTools', 0, 'url'] }, 'quizTools')).toBe(fieldKey.toolUrl('tool-c'));
  });
});

describe('messagesFor', () => {
  const error = { key: fieldKey.password('start'), message: 'Too short.', errorCode: undefined };

  it('gives the message only to the field the refusal is about', () => {
    expect(messagesFor(error, fieldKey.password('start'))).toEqual([{ type: 'newError', text: 'Too short.' }]);
    expect(messagesFor(error, fieldKey.password('quit'))).toBeUndefined();
    expect(messagesFor(null, fieldKey.password('start'))).toBeUndefined();
  });

  it('gives nothing for a refusal placed nowhere', () => {
    expect(messagesFor({ ...error, key: undefined }, 'undefined')).toBeUndefined();
  });
});
