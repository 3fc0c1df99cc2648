import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ERROR_STATUS, ErrorCodes } from '../src/error-codes.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CATALOGUE = 'shared/src/error-codes.ts';
const SOURCE_FOLDERS = ['server/src', 'client/src', 'detector/src', 'shared/src'];

/**
 * Strings that are spelled like a catalogue code but are another library's names: tRPC's own error codes, which the
 * procedure layer maps statuses to and from. Each entry must still occur, so the list cannot outlive its reason.
 */
const NOT_CATALOGUE_CODES: readonly { file: string; text: string; count: number }[] = [
  { file: 'server/src/trpc/error-mapping.ts', text: 'UNAUTHORIZED', count: 2 },
  { file: 'server/src/trpc/error-mapping.ts', text: 'NOT_FOUND', count: 1 },
  { file: 'server/src/trpc/error-mapping.ts', text: 'PAYLOAD_TOO_LARGE', count: 1 },
  { file: 'server/src/trpc/error-mapping.ts', text: 'UNSUPPORTED_MEDIA_TYPE', count: 1 },
  { file: 'server/src/trpc/error-mapping.ts', text: 'SERVICE_UNAVAILABLE', count: 1 },
];

function sourceFiles(folder: string): string[] {
  return readdirSync(path.join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((name) => /\.tsx?$/.test(name) && !name.endsWith('.d.ts'))
    .map((name) => path.posix.join(folder, name.split(path.sep).join('/')));
}

interface Occurrence {
  readonly file: string;
  readonly line: number;
  readonly text: string;
}

/**
 * Every string literal (values, literal types, JSX attributes) and every property name that equals a code. Comments
 * are not code and are not read.
 */
function codeStrings(file: string, codes: ReadonlySet<string>): Occurrence[] {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found: Occurrence[] = [];
  const note = (node: ts.Node, value: string) => {
    if (codes.has(value)) found.push({ file, line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1, text: value });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) note(node, node.text);
    if ((ts.isPropertyAssignment(node) || ts.isPropertySignature(node)) && ts.isIdentifier(node.name)) note(node.name, node.name.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('error-code catalogue', () => {
  it('names every code by itself', () => {
    for (const [name, code] of Object.entries(ErrorCodes)) expect(code).toBe(name);
    expect(Object.keys(ErrorCodes)).toEqual(Object.keys(ERROR_STATUS));
    expect(Object.isFrozen(ErrorCodes)).toBe(true);
  });

  it('is the only place outside tests where a code is written as a string', () => {
    const codes = new Set(Object.keys(ERROR_STATUS));
    const files = SOURCE_FOLDERS.flatMap(sourceFiles).filter((file) => file !== CATALOGUE);
    expect(files.length).toBeGreaterThan(100);
    const occurrences = files.flatMap((file) => codeStrings(file, codes));

    const foreign = occurrences.filter((o) => NOT_CATALOGUE_CODES.some((n) => n.file === o.file && n.text === o.text));
    const written = occurrences.filter((o) => !foreign.includes(o)).map((o) => `${o.file}:${o.line}: '${o.text}' (write ErrorCodes.${o.text})`);
    expect(written).toEqual([]);
    for (const allowed of NOT_CATALOGUE_CODES) {
      const where = foreign.filter((o) => o.file === allowed.file && o.text === allowed.text);
      expect(where.map((o) => `${o.file}:${o.line}: '${o.text}'`), 'tRPC codes spelled like a catalogue code').toHaveLength(allowed.count);
    }
  });
});
