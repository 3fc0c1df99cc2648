import { randomBytes } from 'node:crypto';
import type { HttpHandler } from 'msw';
import { CallLog } from './calls.js';
import { Clock, isoSeconds } from './clock.js';
import { ExamBrowserHost } from './exam-browser/host.js';
import type { LmsCore, LmsSettings, MockLmsOptions, ResolvedTool, ToolOptions } from './context.js';
import type { LmsRuntime } from './runtime.js';
import { FaultRegistry, Hangs } from './faults.js';
import { NewQuizzesEngine } from './new-quizzes/engine.js';
import { newQuizzesEngineRoutes } from './new-quizzes/routes.js';
import { OAuthProvider } from './oauth/provider.js';
import { WebSessions } from './pages/session.js';
import { generatePlatformKey, platformKeyFrom } from './platform/keys.js';
import { Platform } from './platform/platform.js';
import { defaultRegistrationDocument } from './platform/registration.js';
import { routeKey, toMswHandlers } from './router.js';
import { allRoutes } from './routes.js';
import { DEVELOPER_KEY_SCOPES } from './scopes.js';
import { demoSeed } from './demo-seed.js';
import { parseSeed } from './seed.js';
import { startLmsHttpServer, type HttpServerOptions, type RunningLmsServer } from './server.js';
import { LmsState } from './state.js';

export type { MockLmsOptions, ToolOptions, ResolvedTool } from './context.js';
export type { RecordedCall } from './calls.js';
export type { FaultSpec, PendingFault } from './faults.js';
export type { LmsSeed } from './seed.js';
export type { BuiltLaunch, LaunchOptions, LaunchPlacement, SignOptions, AuthorizeOutcome } from './platform/platform.js';
export type { PlatformKey } from './platform/keys.js';
export type { HttpServerOptions, RunningLmsServer } from './server.js';
export type { OAuthProvider, IssuedToken, TokenResponseBody } from './oauth/provider.js';
export type { Platform } from './platform/platform.js';
export type { LmsState, CourseInput, ResourceLinkInput, ResourceLink, Course, Account } from './state.js';
export { demoSeed, DEMO_PERSONAS } from './demo-seed.js';
export { APPLICATION_SCOPES, ADMIN_SCOPES, DEVELOPER_KEY_SCOPES } from './scopes.js';
export { LTI_ROLES } from './platform/roles.js';
export { LTI_CLAIM, DL_CLAIM, PLACEMENT_CLAIM } from './platform/claims.js';
export { defaultRegistrationDocument } from './platform/registration.js';
export { parseLinkHeader, DEFAULT_PER_PAGE, MAX_PER_PAGE } from './pagination.js';
export { SESSION_COOKIE } from './pages/session.js';
export { ANY_ROUTE } from './faults.js';
export { EXAM_BROWSER_PATH } from './exam-browser/host.js';
export type { ExamBrowserHost, ExamBrowserIdentity } from './exam-browser/host.js';
export type { NewQuizzesEngine } from './new-quizzes/engine.js';

export const DEFAULT_ISSUER = 'https://canvas.instructure.com';

export interface MockLms {
  /** The LMS origin. Moves when an HTTP server is started on another port. */
  readonly baseUrl: string;
  readonly issuer: string;
  readonly tool: ResolvedTool;
  /** msw handlers answering requests to the LMS origin only. */
  readonly handlers: readonly HttpHandler[];
  /** All data; read and change it directly. */
  readonly state: LmsState;
  readonly clock: Clock;
  /** Failure injection per route (`faults.next('PUT /api/v1/courses/:course_id/quizzes/:id', { status: 503 })`). */
  readonly faults: FaultRegistry;
  /** Every call received. */
  readonly calls: CallLog;
  /** The OAuth provider: `issueToken`, `approve`, `revoke`, `expire`. */
  readonly oauth: OAuthProvider;
  /** The LTI platform: `jwks`, `buildLaunch`, `signIdToken`, `generateKey`, `keys`, `installRegistration`. */
  readonly platform: Platform;
  /** Route keys, as faults and recorded calls name them. */
  readonly routes: readonly string[];
  /** The testbed page listing demo people and placements. */
  readonly launchPageUrl: string;
  /**
   * The testbed's simulated exam browser at `EXAM_BROWSER_PATH`: `enable(identity)` turns it on with the certificate
   * configurations are encrypted for, and LMS pages framed by it get the exam browser's page API.
   */
  readonly examBrowser: ExamBrowserHost;
  /** Logs `person` into the LMS and returns a `Cookie` header value for requests to its pages and endpoints. */
  webSessionCookie(person: number | string): string;
  /** Reloads the seed and forgets tokens, sessions, launches, faults, calls, clock offset, extra keys and registration changes. */
  reset(): void;
  /** Serves the same LMS over HTTP. */
  startHttpServer(options?: HttpServerOptions): Promise<RunningLmsServer>;
  /** The New Quizzes engine; new-quiz assignment pages frame it once its server runs. */
  readonly newQuizzes: NewQuizzesEngine;
  /**
   * Serves the New Quizzes engine on an origin of its own (`options.origin`, e.g. `http://127.0.0.1:0` beside an LMS
   * on `localhost`), as Canvas's New Quizzes runs on its own host; new-quiz assignment pages frame it from then on.
   */
  startNewQuizzesServer(options: HttpServerOptions & { origin: string }): Promise<RunningLmsServer>;
}

function origin(value: string, name: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${name} must be an absolute URL, got "${value}"`);
  }
  if (url.pathname !== '/' || url.search || url.hash) throw new Error(`${name} must be an origin without a path, got "${value}"`);
  return url.origin;
}

function resolveTool(tool: ToolOptions): ResolvedTool {
  const baseUrl = origin(tool.baseUrl, 'tool.baseUrl');
  return {
    baseUrl,
    clientId: tool.clientId,
    deploymentId: tool.deploymentId,
    oauthClientId: tool.oauthClientId,
    oauthClientSecret: tool.oauthClientSecret,
    toolId: tool.toolId ?? 1,
    redirectUris: tool.redirectUris ?? [`${baseUrl}/lti/launch`, `${baseUrl}/exb/launch/*`],
    oauthRedirectUris: tool.oauthRedirectUris ?? [`${baseUrl}/api/oauth2callback`],
    oauthScopes: tool.oauthScopes ?? [...DEVELOPER_KEY_SCOPES],
  };
}

/**
 * A Canvas-compatible LMS double: REST and new-quiz API, OAuth 2.0 provider, LTI 1.3 platform and the LMS pages the
 * detector runs on, over one state, with per-route fault injection and a record of every call.
 */
export function createMockLms(options: MockLmsOptions): MockLms {
  const tool = resolveTool(options.tool);
  const settings: LmsSettings = {
    unauthorizedStatus: options.unauthorizedStatus ?? 403,
    legacyManageCourses: options.legacyManageCourses ?? false,
    accessTokenLifetimeSeconds: options.accessTokenLifetimeSeconds === undefined ? 3600 : options.accessTokenLifetimeSeconds,
    requireScopes: options.requireScopes ?? true,
    allowIncludes: options.allowIncludes ?? true,
    loginDeploymentParam: options.loginDeploymentParam ?? 'lti_deployment_id',
    platformStorage: options.platformStorage ?? true,
  };
  const seed = parseSeed(options.seed ?? demoSeed());
  const themeJavaScriptUrl = options.tool.themeJavaScriptUrl ?? null;
  const state = new LmsState();
  state.load(seed);
  state.themeJavaScriptUrl = themeJavaScriptUrl;
  const clock = new Clock(options.now);
  const routes = allRoutes();
  const routeKeys = new Set(routes.map(routeKey));
  if (routeKeys.size !== routes.length) throw new Error('Duplicate LMS route');
  let errorReportId = 1000;

  const core: LmsCore = {
    baseUrl: origin(options.baseUrl, 'baseUrl'),
    issuer: options.issuer ?? DEFAULT_ISSUER,
    tool,
    settings,
    state,
    clock,
    faults: new FaultRegistry(() => routeKeys),
    calls: new CallLog(),
    hangs: new Hangs(),
    secret: randomBytes(32),
    examBrowser: new ExamBrowserHost(tool.baseUrl),
    nextErrorReportId: () => ++errorReportId,
  };
  const initialKey = options.platformKey
    ? platformKeyFrom(options.platformKey, isoSeconds(clock.now()))
    : generatePlatformKey({ now: clock.now() });
  // The parts are built on the core and join it in one object, so a moved `baseUrl` is seen by all of them.
  const runtime: LmsRuntime = Object.assign(core, {
    oauth: new OAuthProvider(core),
    newQuizzes: new NewQuizzesEngine(core),
    sessions: new WebSessions(core),
    platform: new Platform(core, initialKey, options.registration ?? defaultRegistrationDocument(tool.baseUrl)),
  });

  const handlers = toMswHandlers(runtime, routes, { matchOrigin: true });

  return {
    get baseUrl() {
      return runtime.baseUrl;
    },
    issuer: runtime.issuer,
    tool,
    handlers,
    state,
    clock,
    faults: runtime.faults,
    calls: runtime.calls,
    oauth: runtime.oauth,
    platform: runtime.platform,
    routes: [...routeKeys],
    get launchPageUrl() {
      return `${runtime.baseUrl}/`;
    },
    examBrowser: runtime.examBrowser,
    newQuizzes: runtime.newQuizzes,
    webSessionCookie: (person) => runtime.sessions.cookieFor(person),
    reset() {
      runtime.hangs.releaseAll();
      runtime.faults.clear();
      runtime.calls.clear();
      clock.reset();
      state.load(seed);
      state.themeJavaScriptUrl = themeJavaScriptUrl;
      runtime.platform.reset();
      runtime.examBrowser.clear();
      runtime.newQuizzes.clear();
    },
    startHttpServer: (serverOptions) => startLmsHttpServer(runtime, routes, serverOptions),
    async startNewQuizzesServer(serverOptions) {
      const server = await startLmsHttpServer(runtime, newQuizzesEngineRoutes(), serverOptions);
      runtime.newQuizzes.url = server.url;
      return {
        ...server,
        close: async () => {
          runtime.newQuizzes.url = null;
          await server.close();
        },
      };
    },
  };
}

type UnhandledRequestCallback = (request: Request, print: { warning(): void; error(): void }) => void;

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

function isLoopback(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname) || hostname.startsWith('127.') || hostname.endsWith('.localhost');
}

/**
 * An msw `onUnhandledRequest` policy for tests that run the LMS in-process beside a real service on loopback: a
 * request to the LMS origin that no handler answers is an error (the service called something the LMS does not
 * have); other loopback requests (the service itself, a database) pass through; anything else is an error too,
 * unless `allowExternal` is set, so tests never reach the network by accident.
 */
export function lmsUnhandledRequestPolicy(
  lms: string | { readonly baseUrl: string },
  options: { allowExternal?: boolean } = {},
): UnhandledRequestCallback {
  return (request, print) => {
    const lmsOrigin = new URL(typeof lms === 'string' ? lms : lms.baseUrl).origin;
    const url = new URL(request.url);
    if (url.origin === lmsOrigin) {
      print.error();
      return;
    }
    if (isLoopback(url.hostname) || options.allowExternal) return;
    print.error();
  };
}
