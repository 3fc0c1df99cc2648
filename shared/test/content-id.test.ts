import { describe, expect, it } from 'vitest';
import {
  CONTENT_ID_MAX_LENGTH,
  classicQuizContentId,
  contentIdMatchesCourse,
  formatContentId,
  isContentId,
  isLmsId,
  newQuizContentId,
  normalizeContentId,
  parseContentId,
} from '../src/content-id.js';
import {
  classicQuizContentIdSchema,
  contentIdParamSchema,
  contentIdSchema,
  lmsIdSchema,
  newQuizContentIdSchema,
  parsedContentIdSchema,
} from '../src/content-id-schema.js';

const HOSTILE_IDS = [
  '',
  '0',
  '00',
  '012',
  '-1',
  '+1',
  '1.0',
  '1e3',
  ' 1',
  '1 ',
  '1\n',
  '0x1f',
  '１２', // full-width digits
  '١٢٣', // Arabic-Indic digits
  '𝟏𝟐', // mathematical bold digits
  '9223372036854775808', // one past the signed 64-bit maximum
  '99999999999999999999',
  '1'.repeat(1000),
  '../1',
  '1/2',
  '%31',
];

describe('isLmsId', () => {
  it('accepts canonical positive decimal ids up to the signed 64-bit maximum', () => {
    for (const id of ['1', '9', '10', '512', '1234', '12340000000000567', '9223372036854775807', '999999999999999999']) {
      expect(isLmsId(id), id).toBe(true);
    }
  });

  it('rejects hostile and non-canonical ids', () => {
    for (const id of HOSTILE_IDS) expect(isLmsId(id), JSON.stringify(id)).toBe(false);
  });

  it('rejects values that are not strings', () => {
    for (const value of [1, 1n, null, undefined, {}, ['1'], true]) expect(isLmsId(value)).toBe(false);
  });
});

describe('parseContentId', () => {
  it('parses both canonical forms', () => {
    expect(parseContentId('classicquiz_512')).toEqual({ kind: 'classic', quizId: '512' });
    expect(parseContentId('newquiz:1234:9901')).toEqual({ kind: 'newquiz', courseId: '1234', assignmentId: '9901' });
  });

  it('rejects bare ids, other prefixes and case variants', () => {
    for (const value of ['512', 'classicquiz512', 'classicquiz-512', 'ClassicQuiz_512', 'CLASSICQUIZ_512', 'newquiz_1_2', 'NewQuiz:1:2', 'quiz_512', 'newquiz:1', 'newquiz:1:2:3', 'newquiz::2', 'newquiz:1:', 'newquiz:1::2']) {
      expect(parseContentId(value), value).toBeNull();
    }
  });

  it('rejects hostile ids inside either form', () => {
    for (const id of HOSTILE_IDS) {
      expect(parseContentId(`classicquiz_${id}`), id).toBeNull();
      expect(parseContentId(`newquiz:${id}:5`), id).toBeNull();
      expect(parseContentId(`newquiz:5:${id}`), id).toBeNull();
    }
  });

  it('rejects surrounding whitespace, traversal and over-long input', () => {
    for (const value of [' classicquiz_1', 'classicquiz_1 ', 'classicquiz_1\n', 'classicquiz_1/../2', '../classicquiz_1', 'newquiz:1:2/', `newquiz:1:${'1'.repeat(CONTENT_ID_MAX_LENGTH)}`]) {
      expect(parseContentId(value), JSON.stringify(value)).toBeNull();
    }
  });

  it('accepts the longest canonical id', () => {
    const max = '9223372036854775807';
    const id = `newquiz:${max}:${max}`;
    expect(id.length).toBe(CONTENT_ID_MAX_LENGTH);
    expect(parseContentId(id)).toEqual({ kind: 'newquiz', courseId: max, assignmentId: max });
  });

  it('rejects values that are not strings', () => {
    for (const value of [512, null, undefined, { kind: 'classic', quizId: '1' }]) expect(parseContentId(value)).toBeNull();
  });
});

describe('formatContentId', () => {
  it('round-trips with parseContentId', () => {
    for (const id of ['classicquiz_1', 'classicquiz_9223372036854775807', 'newquiz:1:2', 'newquiz:1234:9901']) {
      const parsed = parseContentId(id);
      expect(parsed).not.toBeNull();
      expect(formatContentId(parsed!)).toBe(id);
    }
  });

  it('builds each form and refuses non-canonical parts', () => {
    expect(classicQuizContentId('7')).toBe('classicquiz_7');
    expect(newQuizContentId('3', '4')).toBe('newquiz:3:4');
    expect(() => classicQuizContentId('07')).toThrow(RangeError);
    expect(() => newQuizContentId('3', '4:5')).toThrow(RangeError);
    expect(() => formatContentId({ kind: 'newquiz', courseId: '0', assignmentId: '1' })).toThrow(RangeError);
  });
});

describe('normalizeContentId', () => {
  it('turns a bare quiz id into the classic form and keeps canonical ids', () => {
    expect(normalizeContentId('512')).toBe('classicquiz_512');
    expect(normalizeContentId('classicquiz_512')).toBe('classicquiz_512');
    expect(normalizeContentId('newquiz:1:2')).toBe('newquiz:1:2');
  });

  it('rejects everything else', () => {
    for (const value of [...HOSTILE_IDS, 'exb-settings', 'classicquiz_0512', 'newquiz:01:2', 512]) {
      expect(normalizeContentId(value), JSON.stringify(value)).toBeNull();
    }
  });
});

describe('contentIdMatchesCourse', () => {
  it('requires the embedded course of a new quiz to equal the course', () => {
    expect(contentIdMatchesCourse('newquiz:10:20', '10')).toBe(true);
    expect(contentIdMatchesCourse('newquiz:10:20', '11')).toBe(false);
    expect(contentIdMatchesCourse('newquiz:10:20', '010')).toBe(false);
    expect(contentIdMatchesCourse({ kind: 'newquiz', courseId: '10', assignmentId: '20' }, '10')).toBe(true);
  });

  it('passes classic ids, which carry no course, and fails invalid input', () => {
    expect(contentIdMatchesCourse('classicquiz_5', '10')).toBe(true);
    expect(contentIdMatchesCourse('classicquiz_05', '10')).toBe(false);
    expect(contentIdMatchesCourse('5', '10')).toBe(false);
    expect(contentIdMatchesCourse('classicquiz_5', 'abc')).toBe(false);
    expect(contentIdMatchesCourse({ kind: 'newquiz', courseId: '10', assignmentId: '0' }, '10')).toBe(false);
  });
});

describe('content id schemas', () => {
  it('lmsIdSchema mirrors isLmsId', () => {
    expect(lmsIdSchema.safeParse('42').success).toBe(true);
    for (const id of HOSTILE_IDS) expect(lmsIdSchema.safeParse(id).success, id).toBe(false);
  });

  it('contentIdSchema accepts canonical ids only', () => {
    expect(contentIdSchema.parse('classicquiz_1')).toBe('classicquiz_1');
    expect(contentIdSchema.parse('newquiz:1:2')).toBe('newquiz:1:2');
    expect(contentIdSchema.safeParse('1').success).toBe(false);
    expect(contentIdSchema.safeParse('newquiz:1:02').success).toBe(false);
    expect(contentIdSchema.safeParse(1).success).toBe(false);
  });

  it('the kind-specific schemas reject the other kind', () => {
    expect(classicQuizContentIdSchema.safeParse('classicquiz_1').success).toBe(true);
    expect(classicQuizContentIdSchema.safeParse('newquiz:1:2').success).toBe(false);
    expect(newQuizContentIdSchema.safeParse('newquiz:1:2').success).toBe(true);
    expect(newQuizContentIdSchema.safeParse('classicquiz_1').success).toBe(false);
  });

  it('parsedContentIdSchema outputs the parts', () => {
    expect(parsedContentIdSchema.parse('newquiz:1:2')).toEqual({ kind: 'newquiz', courseId: '1', assignmentId: '2' });
  });

  it('contentIdParamSchema normalizes a bare id and rejects reserved words', () => {
    expect(contentIdParamSchema.parse('77')).toBe('classicquiz_77');
    expect(contentIdParamSchema.parse('newquiz:1:2')).toBe('newquiz:1:2');
    expect(contentIdParamSchema.safeParse('exb-settings').success).toBe(false);
    expect(contentIdParamSchema.safeParse('077').success).toBe(false);
  });
});

describe('isContentId', () => {
  it('is parseContentId as a guard', () => {
    expect(isContentId('classicquiz_1')).toBe(true);
    expect(isContentId('1')).toBe(false);
  });
});
