import { randomBytes } from 'node:crypto';
import { ACCESS_CODE_ALPHABET } from '../enforcement/code-generator.js';

/**
 * Exit passwords the administrator's rotation sets as a course's override. Unlike access codes, a person types them (a
 * proctor ends an exam with one), so they come in four groups of four from the same unambiguous alphabet of lower-case
 * letters and digits: 80 bits from the system's cryptographic generator, printable ASCII as the exam browser needs.
 */
const GROUPS = 4;
const GROUP_LENGTH = 4;

export function generateExitPassword(): string {
  const bytes = randomBytes(GROUPS * GROUP_LENGTH);
  const symbols = [...bytes].map((byte) => ACCESS_CODE_ALPHABET[byte & 31]!);
  const groups: string[] = [];
  for (let index = 0; index < GROUPS; index += 1) groups.push(symbols.slice(index * GROUP_LENGTH, (index + 1) * GROUP_LENGTH).join(''));
  return groups.join('-');
}
