import type { RouterInputs, RouterOutputs } from '../../lib/trpc';

type Admin = RouterOutputs['admin'];

export type Summary = Admin['summary'];
export type CourseRow = Admin['courses']['list']['courses'][number];
export type CourseDetail = Admin['courses']['get']['course'];
export type AdminAssessment = CourseDetail['assessments'][number];
export type CatalogCourse = Admin['catalog']['courses'][number];
export type ConnectOutcome = Admin['courses']['connect'];
export type Term = Admin['terms']['list']['terms'][number];
export type CourseListInput = RouterInputs['admin']['courses']['list'];

export const CONTENT_TYPE_LABEL: Record<AdminAssessment['contentType'], string> = {
  CLASSIC_QUIZ: 'Classic quiz',
  NEW_QUIZ: 'New quiz',
};

/** What a term is called in a list: its name and, where the LMS has them, its dates. */
export function termLabel(term: Pick<Term, 'name' | 'startAt' | 'endAt'>): string {
  const date = (value: string | null) => (value === null ? null : new Date(value).toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' }));
  const start = date(term.startAt);
  const end = date(term.endAt);
  return start !== null && end !== null ? `${term.name} (${start} – ${end})` : term.name;
}

export function relativeTime(iso: string, now = Date.now()): string {
  const minutes = Math.round((now - Date.parse(iso)) / 60_000);
  if (minutes < 1) return 'just now';
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  return new Date(iso).toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' });
}
