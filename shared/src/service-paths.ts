/**
 * Routes of the service that anything but their own registration names (the detector on LMS pages, the tool's pages,
 * the LMS registration, the pages the service renders, the benchmarks), each with its method and its route pattern as
 * the service registers it: `:name` is one path segment, `*` the rest of the path. The service registers these routes
 * from here, and a server test holds every entry to a registered route, so a moved route fails there instead of in a
 * browser. A path named nowhere else is spelled once, at its registration.
 *
 * No dependencies, so browser bundles can import it.
 */

export interface ServiceRoute {
  readonly method: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE';
  readonly path: string;
}

/**
 * The detector script an LMS theme loads on every page, and its older address, which older theme overrides load: it must
 * stay byte-for-byte the same response, never a redirect.
 */
export const DETECTOR_SCRIPT_ROUTE = { method: 'GET', path: '/js/lms-exb-detector.js' } as const;
export const DETECTOR_SCRIPT_ALIAS_ROUTE = { method: 'GET', path: '/api/exb/lms-detector.js' } as const;
export const THEME_LOADER_ROUTE = { method: 'GET', path: '/js/lms-exb-theme-loader.js' } as const;
export const DETECTOR_TRACE_ROUTE = { method: 'POST', path: '/api/debug/lms-detector-trace' } as const;
/** The detector's questions on a quiz page (Document 3, "Proof, redemption"). */
export const REQUIREMENT_ROUTE = { method: 'GET', path: '/api/exb/requirement/*' } as const;
export const ACCESS_PROOF_ROUTE = { method: 'POST', path: '/api/exb/access-proof/:courseId/:quizId' } as const;
export const ACCESS_CODE_ROUTE = { method: 'POST', path: '/api/exb/access-code/:courseId/:quizId' } as const;
export const TOOLS_ROUTE = { method: 'GET', path: '/api/exb/tools/:courseId/:quizId' } as const;
export const EXIT_SESSION_ROUTE = { method: 'GET', path: '/exb/exit/session/:courseId/:quizId/:grant' } as const;
/** The pages the detector sends a browser to when the exam browser is required. */
export const REQUIRED_BROWSER_VIEW_ROUTE = { method: 'GET', path: '/exb/quiz/:courseId/:quizId' } as const;
export const REQUIRED_NEW_QUIZ_VIEW_ROUTE = { method: 'GET', path: '/exb/new-quiz/:courseId/:quizId' } as const;
/** The student's download: the grant, the hand-off page, the file itself, and the LMS session's readiness. */
export const CONFIG_GRANT_ROUTE = { method: 'POST', path: '/api/exb/config-grant/:courseId/:contentId' } as const;
export const LAUNCH_HANDOFF_ROUTE = { method: 'GET', path: '/exb/launch-handoff' } as const;
export const CONFIG_DOWNLOAD_ROUTE = { method: 'GET', path: '/exb/config/:courseId/:fileName' } as const;
export const SESSION_READINESS_ROUTE = { method: 'POST', path: '/api/exb/session-readiness' } as const;
export const SESSION_READINESS_DISMISS_ROUTE = { method: 'POST', path: '/api/exb/session-readiness/dismiss' } as const;
/** Exam day: the student's own page asks for the access code an exemption from the exam browser releases once. */
export const EXEMPTION_RELEASE_ROUTE = { method: 'POST', path: '/api/exb/exemption/:courseId/:contentId/release' } as const;
/** Exam day: a board's CSV download, the instructor's and the administrator's (a link: its session token rides in the query). */
export const EXAM_DAY_CSV_ROUTE = { method: 'GET', path: '/api/quizzes/:courseId/:quizId/exb/board.csv' } as const;
export const ADMIN_EXAM_DAY_CSV_ROUTE = { method: 'GET', path: '/api/admin/courses/:courseId/assessments/:assessmentId/exb/board.csv' } as const;
/** What an LMS administrator registers the tool with: its registration document, its key set, and its health check. */
export const LTI_CONFIG_ROUTE = { method: 'GET', path: '/lti/config' } as const;
export const TOOL_KEYS_ROUTE = { method: 'GET', path: '/.well-known/jwks.json' } as const;
export const HEALTH_ROUTE = { method: 'GET', path: '/health' } as const;
/** The page a browser without a session is sent to. */
export const LOGIN_PAGE_ROUTE = { method: 'GET', path: '/login' } as const;
/** The LTI 1.3 login initiation the LMS starts a launch with, the launch itself, and the script of their platform-storage pages. */
export const LTI_LOGIN_ROUTE = { method: 'POST', path: '/lti/login' } as const;
export const LTI_LAUNCH_ROUTE = { method: 'POST', path: '/lti/launch' } as const;
export const PLATFORM_STORAGE_SCRIPT_ROUTE = { method: 'GET', path: '/lti/platform-storage.js' } as const;
/** The exam-browser launch of one assessment (also `GET`, a session reload) and its own login initiation. */
export const EXB_LAUNCH_ROUTE = { method: 'POST', path: '/exb/launch/:contentId' } as const;
export const EXB_LAUNCH_LOGIN_ROUTE = { method: 'GET', path: '/exb/launch/:contentId/login' } as const;
/** Where the LMS authorization returns to. */
export const OAUTH_CALLBACK_ROUTE = { method: 'GET', path: '/api/oauth2callback' } as const;
/** The exam browser's session start, which a configuration's start URL leads through. */
export const SESSION_START_ROUTE = { method: 'GET', path: '/exb/session-start/:courseId/:contentId' } as const;
/** The exits of an exam-browser session: the page after a submission, its quit link, and a configuration's quit URL. */
export const EXIT_QUIT_ROUTE = { method: 'GET', path: '/exb/exit/quit/:courseId/:quizId/:grant' } as const;
export const EXIT_COMPLETE_ROUTE = { method: 'GET', path: '/exb/exit/complete/:courseId/:quizId/:token' } as const;
/** The setup check a student runs the exam browser's own configuration against. */
export const SETUP_CHECK_ROUTE = { method: 'GET', path: '/exb/check' } as const;
export const SETUP_CHECK_QUIT_ROUTE = { method: 'GET', path: '/exb/check/quit' } as const;
export const SETUP_CHECK_PROOF_ROUTE = { method: 'POST', path: '/api/exb/check-proof' } as const;
/** The player a configuration's approved video tool opens, one video per address (`/exb/tool/video/<id>`). */
export const VIDEO_PLAYER_ROUTE = { method: 'GET', path: '/exb/tool/video/*' } as const;
/** The administrator's summary, course list and tool presets, which the benchmarks call as a client would. */
export const ADMIN_SUMMARY_ROUTE = { method: 'GET', path: '/api/admin/summary' } as const;
export const ADMIN_COURSES_ROUTE = { method: 'GET', path: '/api/admin/courses' } as const;
export const ADMIN_TOOL_PRESETS_ROUTE = { method: 'POST', path: '/api/admin/tool-presets' } as const;
export const ADMIN_TOOL_PRESET_ROUTE = { method: 'PUT', path: '/api/admin/tool-presets/:presetId' } as const;
/** The administrator's audit trail as a spreadsheet, a download link that carries its session token in the query. */
export const AUDIT_EXPORT_ROUTE = { method: 'GET', path: '/api/admin/audit.csv' } as const;
/** Where the typed API the tool's pages call is mounted: a prefix, each procedure a path below it. */
export const TRPC_PREFIX = '/trpc';
/** The note a quit URL's page sends the development testbed's simulated exam browser; registered only with the testbed on. */
export const TESTBED_QUIT_NOTICE_ROUTE = { method: 'GET', path: '/exb/testbed/quit-notice.js' } as const;

/** Every route above by name but the testbed's: the list a server test holds against the registered routes. */
export const SERVICE_ROUTES = {
  detectorScript: DETECTOR_SCRIPT_ROUTE,
  detectorScriptAlias: DETECTOR_SCRIPT_ALIAS_ROUTE,
  themeLoader: THEME_LOADER_ROUTE,
  detectorTrace: DETECTOR_TRACE_ROUTE,
  requirement: REQUIREMENT_ROUTE,
  accessProof: ACCESS_PROOF_ROUTE,
  accessCode: ACCESS_CODE_ROUTE,
  tools: TOOLS_ROUTE,
  exitSession: EXIT_SESSION_ROUTE,
  requiredBrowserView: REQUIRED_BROWSER_VIEW_ROUTE,
  requiredNewQuizView: REQUIRED_NEW_QUIZ_VIEW_ROUTE,
  configGrant: CONFIG_GRANT_ROUTE,
  launchHandoff: LAUNCH_HANDOFF_ROUTE,
  configDownload: CONFIG_DOWNLOAD_ROUTE,
  sessionReadiness: SESSION_READINESS_ROUTE,
  sessionReadinessDismiss: SESSION_READINESS_DISMISS_ROUTE,
  exemptionRelease: EXEMPTION_RELEASE_ROUTE,
  examDayCsv: EXAM_DAY_CSV_ROUTE,
  adminExamDayCsv: ADMIN_EXAM_DAY_CSV_ROUTE,
  ltiConfig: LTI_CONFIG_ROUTE,
  toolKeys: TOOL_KEYS_ROUTE,
  health: HEALTH_ROUTE,
  loginPage: LOGIN_PAGE_ROUTE,
  ltiLogin: LTI_LOGIN_ROUTE,
  ltiLaunch: LTI_LAUNCH_ROUTE,
  platformStorageScript: PLATFORM_STORAGE_SCRIPT_ROUTE,
  exbLaunch: EXB_LAUNCH_ROUTE,
  exbLaunchLogin: EXB_LAUNCH_LOGIN_ROUTE,
  oauthCallback: OAUTH_CALLBACK_ROUTE,
  sessionStart: SESSION_START_ROUTE,
  exitQuit: EXIT_QUIT_ROUTE,
  exitComplete: EXIT_COMPLETE_ROUTE,
  setupCheck: SETUP_CHECK_ROUTE,
  setupCheckQuit: SETUP_CHECK_QUIT_ROUTE,
  setupCheckProof: SETUP_CHECK_PROOF_ROUTE,
  videoPlayer: VIDEO_PLAYER_ROUTE,
  adminSummary: ADMIN_SUMMARY_ROUTE,
  adminCourses: ADMIN_COURSES_ROUTE,
  adminToolPresets: ADMIN_TOOL_PRESETS_ROUTE,
  adminToolPreset: ADMIN_TOOL_PRESET_ROUTE,
  auditExport: AUDIT_EXPORT_ROUTE,
} as const satisfies Record<string, ServiceRoute>;

export type ServiceRouteName = keyof typeof SERVICE_ROUTES;

/** What a filled-in segment may not contain: it would leave its segment, or the path. */
const UNSAFE_SEGMENT = /[/?#\\]|^\.{0,2}$/;

/**
 * The path of `route` with its `:name` segments filled in order by `segments`, and `*` by the remaining ones joined with
 * `/`. Segments are taken as given (callers encode or validate them); one that would leave its place, or a count that
 * does not fit the pattern, throws, so a bug fails loudly instead of calling another route.
 */
export function servicePath(route: ServiceRoute, segments: readonly string[] = []): string {
  let next = 0;
  const path = route.path.replace(/:\w+|\*/g, (part) => {
    const taken = part === '*' ? segments.slice(next) : segments.slice(next, next + 1);
    next += taken.length;
    if (taken.length === 0 || taken.some((segment) => UNSAFE_SEGMENT.test(segment))) unexpectedSegments();
    return taken.join('/');
  });
  if (next !== segments.length) unexpectedSegments();
  return path;
}

function unexpectedSegments(): never {
  throw new RangeError('path segments that do not fit the route');
}
