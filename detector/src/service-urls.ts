/**
 * URLs of the service routes the scripts call. Path segments are content ids, LMS ids and base64url tokens, all
 * validated before they get here; the segment check makes a bug fail loudly instead of building another path.
 */
const SEGMENT = /^[A-Za-z0-9_:-]{1,64}$/;

export interface AssessmentTarget {
  readonly courseId: string;
  readonly contentId: string;
}

function join(baseUrl: string, fixed: string, segments: readonly string[]): string {
  for (const segment of segments) {
    if (!SEGMENT.test(segment)) throw new RangeError('unexpected path segment');
  }
  return segments.length === 0 ? `${baseUrl}${fixed}` : `${baseUrl}${fixed}/${segments.join('/')}`;
}

export const serviceUrls = {
  requirement: (baseUrl: string, t: AssessmentTarget) => join(baseUrl, '/api/exb/requirement', [t.courseId, t.contentId]),
  accessProof: (baseUrl: string, t: AssessmentTarget) => join(baseUrl, '/api/exb/access-proof', [t.courseId, t.contentId]),
  accessCode: (baseUrl: string, t: AssessmentTarget) => join(baseUrl, '/api/exb/access-code', [t.courseId, t.contentId]),
  tools: (baseUrl: string, t: AssessmentTarget) => join(baseUrl, '/api/exb/tools', [t.courseId, t.contentId]),
  exitSession: (baseUrl: string, t: AssessmentTarget, exitGrant: string) =>
    join(baseUrl, '/exb/exit/session', [t.courseId, t.contentId, exitGrant]),
  requiredBrowserView: (baseUrl: string, t: AssessmentTarget) => join(baseUrl, '/exb/quiz', [t.courseId, t.contentId]),
  requiredNewQuizView: (baseUrl: string, t: AssessmentTarget) => join(baseUrl, '/exb/new-quiz', [t.courseId, t.contentId]),
  detectorScript: (baseUrl: string) => `${baseUrl}/js/lms-exb-detector.js`,
  detectorScriptAlias: (baseUrl: string) => `${baseUrl}/api/exb/lms-detector.js`,
  trace: (baseUrl: string) => `${baseUrl}/api/debug/lms-detector-trace`,
} as const;
