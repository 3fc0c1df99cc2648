import { readFileSync } from 'node:fs';

/** Public exam-browser test files (see fixtures/README.md); expected values are §9 of the exam-browser format note. */
export function readFixture(name: string): Buffer {
  return readFileSync(new URL(`./fixtures/${name}`, import.meta.url));
}
