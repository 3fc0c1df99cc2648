import {
  ACCESS_CODE_ROUTE,
  ACCESS_PROOF_ROUTE,
  DETECTOR_SCRIPT_ALIAS_ROUTE,
  DETECTOR_SCRIPT_ROUTE,
  DETECTOR_TRACE_ROUTE,
  EXIT_SESSION_ROUTE,
  REQUIRED_BROWSER_VIEW_ROUTE,
  REQUIRED_NEW_QUIZ_VIEW_ROUTE,
  REQUIREMENT_ROUTE,
  servicePath,
  TOOLS_ROUTE,
  type ServiceRoute,
} from '@exb/shared/service-paths.js';

/**
 * URLs of the service routes the scripts call. Path segments are content ids, LMS ids and base64url tokens, all
 * validated before they get here; the segment check makes a bug fail loudly instead of building another path.
 */
const SEGMENT = /^[A-Za-z0-9_:-]{1,64}$/;

export interface AssessmentTarget {
  readonly courseId: string;
  readonly contentId: string;
}

function join(baseUrl: string, route: ServiceRoute, segments: readonly string[] = []): string {
  for (const segment of segments) {
    if (!SEGMENT.test(segment)) throw new RangeError('unexpected path segment');
  }
  return `${baseUrl}${servicePath(route, segments)}`;
}

export const serviceUrls = {
  requirement: (baseUrl: string, t: AssessmentTarget) => join(baseUrl, REQUIREMENT_ROUTE, [t.courseId, t.contentId]),
  accessProof: (baseUrl: string, t: AssessmentTarget) => join(baseUrl, ACCESS_PROOF_ROUTE, [t.courseId, t.contentId]),
  accessCode: (baseUrl: string, t: AssessmentTarget) => join(baseUrl, ACCESS_CODE_ROUTE, [t.courseId, t.contentId]),
  tools: (baseUrl: string, t: AssessmentTarget) => join(baseUrl, TOOLS_ROUTE, [t.courseId, t.contentId]),
  exitSession: (baseUrl: string, t: AssessmentTarget, exitGrant: string) =>
    join(baseUrl, EXIT_SESSION_ROUTE, [t.courseId, t.contentId, exitGrant]),
  requiredBrowserView: (baseUrl: string, t: AssessmentTarget) => join(baseUrl, REQUIRED_BROWSER_VIEW_ROUTE, [t.courseId, t.contentId]),
  requiredNewQuizView: (baseUrl: string, t: AssessmentTarget) => join(baseUrl, REQUIRED_NEW_QUIZ_VIEW_ROUTE, [t.courseId, t.contentId]),
  detectorScript: (baseUrl: string) => join(baseUrl, DETECTOR_SCRIPT_ROUTE),
  detectorScriptAlias: (baseUrl: string) => join(baseUrl, DETECTOR_SCRIPT_ALIAS_ROUTE),
  trace: (baseUrl: string) => join(baseUrl, DETECTOR_TRACE_ROUTE),
} as const;
