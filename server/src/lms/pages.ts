import type { ParsedContentId } from '@exb/shared/content-id.js';
import { classicQuizPath, newQuizAssignmentPath } from '@exb/shared/lms-paths.js';

/**
 * The LMS pages the service links to, starts the exam browser on, or returns users to, each built from ids alone
 * (never from a URL a request carried). `lmsUrl` is the configured LMS origin.
 */

export function lmsCourseUrl(lmsUrl: string, courseId: string): string {
  return new URL(`/courses/${courseId}`, lmsUrl).href;
}

/**
 * The LMS's list of the accounts the person administers, each leading to its account page and navigation: Canvas's
 * `GET /accounts` (`AccountsController#index`, "Accounts I Manage").
 */
export function lmsAccountsUrl(lmsUrl: string): string {
  return new URL('/accounts', lmsUrl).href;
}

/** Where a principal returns to in the LMS: its course, or for an administrator its account. */
export function lmsHomeUrl(
  lmsUrl: string,
  principal: { kind: 'admin'; accountId: string } | { kind: 'instructor' | 'student'; courseId: string },
): string {
  return principal.kind === 'admin' ? new URL(`/accounts/${principal.accountId}`, lmsUrl).href : lmsCourseUrl(lmsUrl, principal.courseId);
}

/** The assessment's own page: the classic quiz, or the assignment that embeds the new quiz. */
export function lmsAssessmentUrl(lmsUrl: string, courseId: string, content: ParsedContentId): string {
  const path =
    content.kind === 'classic' ? classicQuizPath(courseId, content.quizId) : newQuizAssignmentPath(content.courseId, content.assignmentId);
  return new URL(path, lmsUrl).href;
}

/**
 * The LMS page that launches this tool in a course at a given target URL: Canvas's
 * `GET /courses/:course_id/external_tools/retrieve?url=…` (`config/routes.rb`; `ExternalToolsController#retrieve` finds
 * the installed tool whose domain matches `url` and sends an LTI launch with that URL as its target). The browser goes
 * through the LMS's own login and the tool's signed launch, so it needs no session with the service.
 */
export function lmsToolLaunchUrl(lmsUrl: string, courseId: string, targetUrl: string): string {
  const url = new URL(`/courses/${courseId}/external_tools/retrieve`, lmsUrl);
  url.searchParams.set('url', targetUrl);
  return url.href;
}
