import { catalogSeed } from './seed-catalog.js';
import type { LmsSeed } from './seed.js';

/** Demo personas the launch page offers, in display order. */
export const DEMO_PERSONAS = ['instructor', 'student1', 'student2', 'administrator', 'designer', 'ta'] as const;

/**
 * The demo school: a root account with two faculties, an instructor with a current, a second and a concluded course,
 * two students, a designer and a TA, a root-account administrator, a sub-account administrator and a teacher of an
 * unrelated course (for "not your course" checks); then a catalog of 60 more courses to page through and another
 * school with its own administrator (`seed-catalog.ts`). Returns a fresh copy each call.
 */
export function demoSeed(): LmsSeed {
  const school = demoSchool();
  const catalog = catalogSeed();
  return {
    accounts: [...school.accounts, ...catalog.accounts],
    terms: [...(school.terms ?? []), ...catalog.terms],
    users: [...school.users, ...catalog.users],
    courses: [...school.courses, ...catalog.courses],
    enrollments: [...(school.enrollments ?? []), ...catalog.enrollments],
    accountAdmins: [...(school.accountAdmins ?? []), ...catalog.accountAdmins],
    quizzes: [...(school.quizzes ?? []), ...catalog.quizzes],
    assignments: school.assignments ?? [],
    newQuizzes: [...(school.newQuizzes ?? []), ...catalog.newQuizzes],
  };
}

/** The hand-written part of the demo seed, whose ids and personas the tests name. */
function demoSchool(): LmsSeed {
  return {
    accounts: [
      { id: 1, name: 'Example University', parentAccountId: null },
      { id: 2, name: 'Faculty of Science', parentAccountId: 1 },
      { id: 3, name: 'Faculty of Humanities', parentAccountId: 1 },
    ],
    terms: [
      { id: 1, name: 'Default Term' },
      { id: 2, name: 'Fall 2025', startAt: '2025-08-25T06:00:00Z', endAt: '2025-12-19T23:00:00Z' },
      { id: 3, name: 'Spring 2026', startAt: '2026-01-12T06:00:00Z', endAt: '2026-05-29T23:00:00Z' },
      { id: 4, name: 'Fall 2026', startAt: '2026-08-31T06:00:00Z', endAt: '2026-12-20T23:00:00Z' },
    ],
    users: [
      { id: 1, name: 'Ada Administrator', email: 'ada.admin@example.edu', persona: 'administrator', label: 'administrator' },
      { id: 2, name: 'Ian Instructor', email: 'ian.instructor@example.edu', persona: 'instructor', label: 'instructor', sisUserId: 'T-0002' },
      { id: 3, name: 'Sam Student', email: 'sam.student@example.edu', persona: 'student1', label: 'student 1', sisUserId: 'S-0003' },
      { id: 4, name: 'Sue Student', email: 'sue.student@example.edu', persona: 'student2', label: 'student 2', sisUserId: 'S-0004' },
      { id: 5, name: 'Dee Designer', email: 'dee.designer@example.edu', persona: 'designer', label: 'designer' },
      { id: 6, name: 'Tao Assistant', email: 'tao.assistant@example.edu', persona: 'ta', label: 'TA' },
      { id: 7, name: 'Olga Other', email: 'olga.other@example.edu', persona: 'other-teacher', label: 'teacher of another course' },
      { id: 8, name: 'Sid Subadmin', email: 'sid.subadmin@example.edu', persona: 'subaccount-admin', label: 'sub-account administrator' },
    ],
    courses: [
      { id: 101, name: 'Biology 101', courseCode: 'BIO101', accountId: 2, termId: 4, sisCourseId: 'BIO101-F26' },
      { id: 102, name: 'Chemistry 201', courseCode: 'CHEM201', accountId: 2, termId: 4 },
      { id: 103, name: 'Biology 100 (Fall 2025)', courseCode: 'BIO100-F25', accountId: 2, termId: 2, concluded: true },
      { id: 104, name: 'History 110', courseCode: 'HIST110', accountId: 3, termId: 4 },
      { id: 105, name: 'Physics 150 (draft)', courseCode: 'PHYS150', accountId: 2, termId: 4, published: false },
    ],
    enrollments: [
      { userId: 2, courseId: 101, type: 'teacher' },
      { userId: 2, courseId: 102, type: 'teacher' },
      { userId: 2, courseId: 103, type: 'teacher' },
      { userId: 2, courseId: 105, type: 'teacher' },
      { userId: 3, courseId: 101, type: 'student' },
      { userId: 3, courseId: 103, type: 'student' },
      { userId: 3, courseId: 105, type: 'student' },
      { userId: 4, courseId: 101, type: 'student' },
      { userId: 4, courseId: 102, type: 'student' },
      { userId: 5, courseId: 101, type: 'designer' },
      { userId: 6, courseId: 101, type: 'ta' },
      { userId: 7, courseId: 104, type: 'teacher' },
    ],
    accountAdmins: [
      { userId: 1, accountId: 1 },
      { userId: 8, accountId: 2 },
    ],
    quizzes: [
      { id: 201, courseId: 101, title: 'Midterm exam', quizType: 'assignment', assignmentId: 311, timeLimit: 60 },
      { id: 202, courseId: 101, title: 'Weekly practice quiz', quizType: 'practice_quiz' },
      { id: 203, courseId: 101, title: 'Final exam (draft)', quizType: 'assignment', assignmentId: 313, published: false },
      { id: 204, courseId: 101, title: 'Lab safety check', quizType: 'assignment', assignmentId: 314, accessCode: 'lab-2026' },
      { id: 205, courseId: 102, title: 'Stoichiometry quiz', quizType: 'assignment', assignmentId: 315 },
      { id: 206, courseId: 104, title: 'Primary sources quiz', quizType: 'assignment', assignmentId: 316 },
      { id: 207, courseId: 103, title: 'Biology 100 midterm', quizType: 'assignment', assignmentId: 317 },
    ],
    assignments: [{ id: 320, courseId: 101, name: 'Lab report', submissionTypes: ['online_upload'] }],
    newQuizzes: [
      { assignmentId: 301, courseId: 101, title: 'Final exam (New Quizzes)', instructions: '<p>Closed book.</p>', pointsPossible: 50 },
      { assignmentId: 302, courseId: 101, title: 'Unit 3 check (New Quizzes)', published: false },
      { assignmentId: 303, courseId: 102, title: 'Chemistry final (New Quizzes)' },
    ],
  };
}
