import type { LmsSeed } from './seed.js';

type SeedPart = Required<Pick<LmsSeed, 'accounts' | 'terms' | 'users' | 'courses' | 'enrollments' | 'accountAdmins' | 'quizzes' | 'newQuizzes'>>;

const SUBJECTS: ReadonlyArray<readonly [name: string, code: string]> = [
  ['Algebra', 'ALG'],
  ['Art History', 'ARTH'],
  ['Astronomy', 'ASTR'],
  ['Calculus', 'CALC'],
  ['Economics', 'ECON'],
  ['Geography', 'GEOG'],
  ['Geology', 'GEOL'],
  ['Linguistics', 'LING'],
  ['Literature', 'LIT'],
  ['Music Theory', 'MUS'],
  ['Philosophy', 'PHIL'],
  ['Psychology', 'PSY'],
  ['Sociology', 'SOC'],
  ['Spanish', 'SPAN'],
  ['Statistics', 'STAT'],
];
const SECTIONS = ['A', 'B', 'C', 'D'] as const;

/** Course ids of the catalog: 106 to 165, after the hand-written demo courses. */
export const CATALOG_COURSE_IDS = { first: 106, count: 60 } as const;
const CATALOG_TEACHERS = [10, 11, 12, 13];
const SPRING_2026 = 3;
const FALL_2026 = 4;
const HUMANITIES = 3;

/** The other school on the same installation: its own root account, term, course and administrator. */
export const OTHER_SCHOOL = { accountId: 4, termId: 5, courseId: 170, adminUserId: 9 } as const;

/**
 * The course catalog an administrator pages through: 60 courses over Spring and Fall 2026 (mostly in the root account,
 * every fifth in the Humanities sub-account, every seventh unpublished, a third without any enrollment), the first
 * twelve with a classic quiz and the first six with a new quiz; plus another school with its own administrator.
 * Names and codes carry no digits beyond the term, so searches of the hand-written courses stay unambiguous.
 */
export function catalogSeed(): SeedPart {
  const part: SeedPart = {
    accounts: [{ id: OTHER_SCHOOL.accountId, name: 'Northfield College', parentAccountId: null, defaultTimeZone: 'America/Chicago' }],
    terms: [
      {
        id: OTHER_SCHOOL.termId,
        rootAccountId: OTHER_SCHOOL.accountId,
        name: 'Northfield Fall 2026',
        startAt: '2026-09-01T06:00:00Z',
        endAt: '2026-12-18T23:00:00Z',
      },
    ],
    users: [
      { id: OTHER_SCHOOL.adminUserId, name: 'Nora North', email: 'nora.north@northfield.example', persona: 'other-root-admin', label: 'administrator of another school' },
      { id: 10, name: 'Carla Catalog', email: 'carla.catalog@example.edu', persona: 'catalog-teacher-1', label: 'catalog teacher 1' },
      { id: 11, name: 'Dan Docent', email: 'dan.docent@example.edu', persona: 'catalog-teacher-2', label: 'catalog teacher 2' },
      { id: 12, name: 'Erin Educator', email: 'erin.educator@example.edu', persona: 'catalog-teacher-3', label: 'catalog teacher 3' },
      { id: 13, name: 'Finn Faculty', email: 'finn.faculty@example.edu', persona: 'catalog-teacher-4', label: 'catalog teacher 4' },
    ],
    courses: [
      {
        id: OTHER_SCHOOL.courseId,
        name: 'Northfield Orientation',
        courseCode: 'NF-ORIENT',
        accountId: OTHER_SCHOOL.accountId,
        termId: OTHER_SCHOOL.termId,
      },
    ],
    enrollments: [],
    accountAdmins: [{ userId: OTHER_SCHOOL.adminUserId, accountId: OTHER_SCHOOL.accountId }],
    quizzes: [],
    newQuizzes: [],
  };

  for (let index = 0; index < CATALOG_COURSE_IDS.count; index += 1) {
    const id = CATALOG_COURSE_IDS.first + index;
    const [subject, code] = SUBJECTS[index % SUBJECTS.length]!;
    const section = SECTIONS[Math.floor(index / SUBJECTS.length)]!;
    const fall = index % 2 === 0;
    part.courses.push({
      id,
      name: `${subject} ${section}`,
      courseCode: `${code}-${section}-${fall ? 'F' : 'S'}26`,
      accountId: index % 5 === 3 ? HUMANITIES : 1,
      termId: fall ? FALL_2026 : SPRING_2026,
      published: index % 7 !== 6,
    });
    if (index % 3 !== 2) part.enrollments.push({ userId: CATALOG_TEACHERS[index % CATALOG_TEACHERS.length]!, courseId: id, type: 'teacher' });
    if (index < 12) part.quizzes.push({ id: 208 + index, courseId: id, title: `${subject} ${section} midterm`, quizType: 'assignment' });
    if (index < 6) part.newQuizzes.push({ assignmentId: 321 + index, courseId: id, title: `${subject} ${section} final (New Quizzes)` });
  }
  return part;
}
