import { i18next } from '../../i18n/i18n';
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

/** A date as the page's language writes it ("Aug 31, 2026", "31. Aug. 2026"). */
export function formatDate(iso: string): string {
  return new Date(iso).toLocaleDateString(i18next.language, { year: 'numeric', month: 'short', day: 'numeric' });
}

/** A moment, date and time, as the page's language writes it. */
export function formatDateTime(iso: string): string {
  return new Date(iso).toLocaleString(i18next.language, { dateStyle: 'medium', timeStyle: 'short' });
}

/** What a term is called in a list: its name and, where the LMS has them, its dates. */
export function termLabel(term: Pick<Term, 'name' | 'startAt' | 'endAt'>): string {
  if (term.startAt === null || term.endAt === null) return term.name;
  return i18next.t('admin:terms.withDates', { name: term.name, start: formatDate(term.startAt), end: formatDate(term.endAt) });
}

/** How long ago, shortly: "just now", "5 min. ago", "3 hr. ago", then the date. */
export function relativeTime(iso: string, now = Date.now()): string {
  const minutes = Math.round((now - Date.parse(iso)) / 60_000);
  if (minutes < 1) return i18next.t('admin:time.justNow');
  const format = new Intl.RelativeTimeFormat(i18next.language, { style: 'short' });
  if (minutes < 60) return format.format(-minutes, 'minute');
  const hours = Math.round(minutes / 60);
  if (hours < 24) return format.format(-hours, 'hour');
  return formatDate(iso);
}
