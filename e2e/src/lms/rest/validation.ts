import { z } from 'zod';
import { LmsHttpError } from '../errors.js';

/** Booleans as the LMS reads them from JSON or form fields. */
export const booleanish = z
  .union([z.boolean(), z.enum(['true', 'false', '1', '0'])])
  .transform((value) => value === true || value === 'true' || value === '1');

export const nullableNumberish = z
  .union([z.number(), z.string().regex(/^\d+(\.\d+)?$/), z.literal(''), z.null()])
  .transform((value) => (value === null || value === '' ? null : Number(value)));

/** Parses a request body; a mismatch answers 400 with record-style errors (`{ errors: { field: [...] } }`). */
export function parseOrReject<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const errors: Record<string, Array<{ attribute: string; type: string; message: string }>> = {};
  for (const issue of result.error.issues) {
    const attribute = String(issue.path.at(-1) ?? 'base');
    (errors[attribute] ??= []).push({ attribute, type: 'invalid', message: issue.message });
  }
  throw new LmsHttpError(400, { errors });
}

/** `search_term` must have at least 3 characters. */
export function checkSearchTerm(term: string | undefined): void {
  if (term !== undefined && term.length < 3) {
    throw new LmsHttpError(400, {
      errors: [{ field: 'search_term', code: 'invalid', message: '3 or more characters is required' }],
    });
  }
}
