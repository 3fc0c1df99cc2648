import { parseContentId, type ParsedContentId } from '@exb/shared/content-id.js';
import { lmsAssessmentUrl, lmsCourseUrl } from '../../lms/pages.js';
import type { ExbRequirementLookup } from '../exb-requirement.js';
import type { CoursePrincipal, Principal } from '../../identity/principal.js';

/** How long a completed exam-browser launch is remembered (Document 3). */
export const EXB_LAUNCH_MEMORY_MS = 24 * 60 * 60 * 1000;

/** Completed exam-browser launches: content id → epoch milliseconds. */
export type CompletedLaunches = Record<string, number>;

export interface ExbLaunchRequest {
  readonly principal: Principal;
  readonly contentId: string;
  readonly completedLaunches: CompletedLaunches;
  /** The request comes from the exam browser (it only chooses the page; nothing is released on it). */
  readonly fromExamBrowser: boolean;
  readonly now: number;
}

export type ExbLaunchDecision =
  | { readonly kind: 'not-for-admin' }
  | { readonly kind: 'course-mismatch' }
  /** A second load after a completed launch: back to the course home. */
  | { readonly kind: 'course-home'; readonly url: string }
  /** To the LMS assessment: it needs no exam browser, or this is the exam browser (then `completed` holds the record). */
  | { readonly kind: 'assessment'; readonly url: string; readonly completed: CompletedLaunches | null }
  | {
      readonly kind: 'exb-required';
      readonly principal: CoursePrincipal;
      readonly contentId: string;
      readonly content: ParsedContentId;
      readonly assessmentUrl: string;
      readonly courseHomeUrl: string;
    };

export interface ExbLaunchDependencies {
  readonly lmsUrl: string;
  readonly requirement: ExbRequirementLookup;
}

/**
 * The result of an exam-browser launch (Document 3) for a session whose launch targeted `contentId`: a second load
 * after a completed launch goes to the LMS course home; an assessment without enforcement, or a request from the exam
 * browser, goes to the LMS assessment (the latter completes the launch); otherwise the required-browser view.
 */
export async function decideExbLaunch(deps: ExbLaunchDependencies, launch: ExbLaunchRequest): Promise<ExbLaunchDecision> {
  const { principal, contentId, now } = launch;
  if (principal.kind === 'admin') return { kind: 'not-for-admin' };
  const content = parseContentId(contentId);
  if (!content || (content.kind === 'newquiz' && content.courseId !== principal.courseId)) return { kind: 'course-mismatch' };

  const courseHomeUrl = lmsCourseUrl(deps.lmsUrl, principal.courseId);
  const completedAt = launch.completedLaunches[contentId];
  if (completedAt !== undefined && now - completedAt < EXB_LAUNCH_MEMORY_MS) return { kind: 'course-home', url: courseHomeUrl };

  const assessmentUrl = lmsAssessmentUrl(deps.lmsUrl, principal.courseId, content);
  if (!(await deps.requirement.isRequired({ courseId: principal.courseId, contentId }))) {
    return { kind: 'assessment', url: assessmentUrl, completed: null };
  }
  if (launch.fromExamBrowser) {
    return { kind: 'assessment', url: assessmentUrl, completed: { ...recentExbLaunches(launch.completedLaunches, now), [contentId]: now } };
  }
  return { kind: 'exb-required', principal, contentId, content, assessmentUrl, courseHomeUrl };
}

/** Completed launches younger than a day; older ones are dropped whenever the record is written. */
export function recentExbLaunches(launches: CompletedLaunches, now = Date.now()): CompletedLaunches {
  return Object.fromEntries(Object.entries(launches).filter(([, at]) => now - at < EXB_LAUNCH_MEMORY_MS));
}

/**
 * The record a new launch starts with: the completed launches of the session it replaces when that session was the
 * same person's (also when it reached its maximum age), so a relaunch after the assessment still goes to the course
 * home; nothing otherwise.
 */
export function carriedExbLaunches(
  previous: { principal: Pick<Principal, 'issuer' | 'lmsUserId' | 'ltiSubject'>; exbLaunches: CompletedLaunches } | null,
  principal: Pick<Principal, 'issuer' | 'lmsUserId' | 'ltiSubject'>,
  now = Date.now(),
): CompletedLaunches {
  const samePerson =
    previous !== null &&
    previous.principal.issuer === principal.issuer &&
    previous.principal.lmsUserId === principal.lmsUserId &&
    previous.principal.ltiSubject === principal.ltiSubject;
  return samePerson ? recentExbLaunches(previous.exbLaunches, now) : {};
}
