import { SERVICE_ROUTES, servicePath } from '@exb/shared/service-paths.js';
import { opaqueId, stableUuid } from '../lms/ids.js';

/** The course, quizzes, student and deployment every student benchmark works with. */
export const COURSE = '101';
/** The quiz the proof is measured on: its stored keys stay at the class size. */
export const QUIZ = 'classicquiz_201';
/** The quiz the download and start rounds use, so their keys do not grow the proof's candidate set. */
export const DOWNLOAD_QUIZ = 'classicquiz_202';
/** The development LMS's first student; its LTI subject is the one the LMS signs into launches. */
export const STUDENT = { lmsUserId: '3', ltiSubject: stableUuid('user:3') };
/** The development LMS's instructor of the course, who watches the exam-day boards. */
export const INSTRUCTOR = { lmsUserId: '2', ltiSubject: stableUuid('user:2') };
export const COURSE_CONTEXT_ID = opaqueId('course', 101);
export const DEPLOYMENT_ID = '1:8865aa05b4b79b64a91a86042e43af5ea8ae79eb';
export const LTI_ISSUER = 'https://canvas.bench.test';
export const BASE_URL = 'https://exb.bench.test';
/** Downloads made before measuring, so the proof compares against a class's worth of stored keys. */
export const CLASS_SIZE = 200;
export const HUGE_BUDGET = 100_000_000;
/** Tokens the service mints for the benchmark per call. */
export const MINT_BATCH = 1_000;
/** What a TLS-terminating proxy in front adds; the service trusts loopback proxies. */
export const PROXY_HEADERS = { 'x-forwarded-for': '198.51.100.7', 'x-forwarded-proto': 'https' };

/** The service's download of one assessment's configuration in the bench course, with a config grant. */
export function downloadPath(contentId: string, grant: string): string {
  return `${servicePath(SERVICE_ROUTES.configDownload, [COURSE, `${contentId}.exb`])}?grant=${grant}`;
}
