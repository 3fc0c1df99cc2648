import type { FastifyRequest } from 'fastify';
import { authorizationStartPath } from '@exb/shared/oauth-popup-ticket.js';
import { servicePath, CONFIG_GRANT_ROUTE, EXEMPTION_RELEASE_ROUTE } from '@exb/shared/service-paths.js';
import type { AppContext } from '../../context.js';
import type { CoursePrincipal } from '../../identity/principal.js';

/** The config-grant route of one assessment, as the student pages call it. */
export function configGrantPath(courseId: string, contentId: string): string {
  return servicePath(CONFIG_GRANT_ROUTE, [encodeURIComponent(courseId), encodeURIComponent(contentId)]);
}

/**
 * What the student's course view shows beside the common fields: the assessments that require the exam browser, each
 * with its download entry point, and, where configurations sign the exam browser in to the LMS, the authorization
 * start and whether the student dismissed the readiness prompt. A failed lookup, or a course the LMS has not proven for
 * the launch's context yet (`courseUnverified`), still renders the page, without the list (the view says why); the
 * assessments' own LMS pages lead to the download too.
 */
export async function studentCourseData(request: FastifyRequest, ctx: AppContext, principal: CoursePrincipal) {
  const { requiredAssessments, readiness, readinessDismissals } = ctx.examBrowser;
  // Titles are the course's to tell: only for a course the LMS proved for this launch's context (docs/architecture.md, trust model).
  const listRequired = async () =>
    (await ctx.identity.courseProvenForReading(principal)) ? requiredAssessments.list(principal.courseId) : ('unverified' as const);
  const [listed, dismissed, exemptions] = await Promise.all([
    listRequired().catch((error: unknown) => {
      request.log.warn({ err: error, courseId: principal.courseId }, 'required assessments could not be listed');
      return null;
    }),
    readiness.applies
      ? readinessDismissals.isDismissed(principal.lmsUserId).catch((error: unknown) => {
          request.log.warn({ err: error }, 'session-readiness preference could not be read');
          return false;
        })
      : false,
    // Exam day: an exemption from the exam browser granted to this student (never its code, which the page asks for).
    ctx.management.exemptions.offers(principal).catch((error: unknown) => {
      request.log.warn({ err: error, courseId: principal.courseId }, 'exemptions could not be read');
      return [];
    }),
  ]);
  const assessments = listed === 'unverified' ? null : listed;
  return {
    ...(listed === 'unverified' ? { courseUnverified: true as const } : {}),
    ...(assessments === null
      ? {}
      : {
          assessments: assessments.map(({ contentId, kind, title }) => ({
            contentId,
            kind,
            title,
            configGrantUrl: configGrantPath(principal.courseId, contentId),
          })),
        }),
    ...(readiness.applies ? { authorizeUrl: authorizationStartPath('student-session-authorize'), sessionReadiness: { dismissed } } : {}),
    ...(listed === 'unverified' || exemptions.length === 0
      ? {}
      : {
          exemptions: exemptions.map((offer) => ({
            ...offer,
            releaseUrl: servicePath(EXEMPTION_RELEASE_ROUTE, [encodeURIComponent(principal.courseId), encodeURIComponent(offer.contentId)]),
          })),
        }),
  };
}

