import type { KeyObject } from 'node:crypto';
import type { CallLog } from './calls.js';
import type { Clock } from './clock.js';
import type { ExamBrowserHost } from './exam-browser/host.js';
import type { FaultRegistry, Hangs } from './faults.js';
import type { LmsSeed } from './seed.js';
import type { LmsState } from './state.js';

/** The service as registered in the LMS: its LTI developer key and deployment, and its API developer key. */
export interface ToolOptions {
  /** The service origin, e.g. `http://localhost:3000`. */
  baseUrl: string;
  /** The LTI developer key id (`client_id`, `aud`). */
  clientId: string;
  deploymentId: string;
  /** The API developer key used for the OAuth grant. */
  oauthClientId: string;
  oauthClientSecret: string;
  /** The theme JavaScript every LMS page includes (the detector's loader); `null`/absent for none. */
  themeJavaScriptUrl?: string | null;
  /** The LMS's id of the installed tool (`/courses/:id/external_tools/:tool_id`); default 1. */
  toolId?: number;
  /** The LTI key's redirect URIs; default `{baseUrl}/lti/launch` and `{baseUrl}/exb/launch/*`. */
  redirectUris?: string[];
  /** The API key's redirect URIs; default `{baseUrl}/api/oauth2callback`. */
  oauthRedirectUris?: string[];
  /** Scopes the API key allows; default the administrator plus application scopes of Document 1. */
  oauthScopes?: string[];
}

export interface MockLmsOptions {
  /** The LMS origin, e.g. `http://127.0.0.1:3001`. In-process handlers match only this origin. */
  baseUrl: string;
  tool: ToolOptions;
  /** The LTI `iss`; default `https://canvas.instructure.com`. */
  issuer?: string;
  /** The fixture loaded at creation and on `reset()`; default the demo seed. */
  seed?: LmsSeed;
  /** The registration document pasted into the LTI key; default the one Document 1 describes. */
  registration?: unknown;
  /** Status of "not authorized" API answers: 403 (hosted LMS, default) or 401 (older installations). */
  unauthorizedStatus?: 401 | 403;
  /** Answer the legacy `manage_courses` permission for administrators (granular course permissions off). */
  legacyManageCourses?: boolean;
  /** Lifetime of issued access tokens; `null` for tokens that never expire. Default 3600. */
  accessTokenLifetimeSeconds?: number | null;
  /** The API key enforces scopes (the default); without it any route is allowed for any token. */
  requireScopes?: boolean;
  /**
   * The API key's "Allow Include Parameters" (`allow_includes`). Default on, as the setup guide has it; Canvas's column
   * defaults to off, and then a scoped token's `include[]` values are dropped.
   */
  allowIncludes?: boolean;
  /** Which name the login initiation uses for the deployment id; the LMS switched to `lti_deployment_id` in 2025. */
  loginDeploymentParam?: 'lti_deployment_id' | 'deployment_id' | 'both';
  /**
   * Whether the LMS offers platform storage (the client-side postMessages `lti.put_data` and `lti.get_data` through
   * its `post_message_forwarding` frame) and says so with `lti_storage_target`; on by default, as Canvas does. Off
   * models a platform without it, whose tools rely on cookies alone.
   */
  platformStorage?: boolean;
  /** Time source; the LMS's clock can also be moved with `lms.clock.advance()`. */
  now?: () => number;
  /** The platform's RSA signing key (private). Generated when not given. */
  platformKey?: KeyObject;
}

export interface ResolvedTool {
  baseUrl: string;
  clientId: string;
  deploymentId: string;
  oauthClientId: string;
  oauthClientSecret: string;
  toolId: number;
  redirectUris: string[];
  oauthRedirectUris: string[];
  oauthScopes: string[];
}

export interface LmsSettings {
  unauthorizedStatus: 401 | 403;
  legacyManageCourses: boolean;
  accessTokenLifetimeSeconds: number | null;
  requireScopes: boolean;
  allowIncludes: boolean;
  loginDeploymentParam: 'lti_deployment_id' | 'deployment_id' | 'both';
  platformStorage: boolean;
}

/**
 * What every part of the LMS shares, below the parts themselves (OAuth provider, platform, web sessions, New Quizzes
 * engine), which are built on it; route handlers see the parts too, through `LmsRuntime` in `runtime.ts`.
 */
export interface LmsCore {
  /** Mutable: an HTTP server started on another port moves the LMS there. */
  baseUrl: string;
  readonly issuer: string;
  readonly tool: ResolvedTool;
  readonly settings: LmsSettings;
  readonly state: LmsState;
  readonly clock: Clock;
  readonly faults: FaultRegistry;
  readonly calls: CallLog;
  readonly hangs: Hangs;
  /** Signs launch hints, session tokens and CSRF tokens. */
  readonly secret: Buffer;
  /** The testbed's simulated exam browser (off unless enabled). */
  readonly examBrowser: ExamBrowserHost;
  nextErrorReportId(): number;
}
