import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { ADMIN_AND_APPLICATION_SCOPES } from '@exb/shared/oauth-scopes.js';
import { buildApp } from '../../src/app.js';
import type { AppConfig } from '../../src/config/app-config.js';
import { createLogger } from '../../src/logger.js';
import { allBackgroundWorkIdle } from '../../src/domain/admin/background.js';
import type { Principal } from '../../src/identity/principal.js';
import { createSettingsRepository, type SettingsRepository } from '../../src/domain/settings/settings-repository.js';
import { ACTION_TOKEN_HEADER } from '../../src/security/action-token.js';
import { bootstrapOf, createOAuthTestbed, FAST_OAUTH, LMS_URL, storeGrant, type OAuthTestbed, type OAuthTestbedOptions } from '../support/oauth-testbed.js';
import { admin, sessionFor } from '../support/sessions.js';

export { LMS_URL };

/** LMS route keys the administrator flows use, as faults and the call log name them. */
export const LMS_ROUTES = {
  getCourse: 'GET /api/v1/courses/:id',
  getAccount: 'GET /api/v1/accounts/:id',
  accountCourses: 'GET /api/v1/accounts/:account_id/courses',
  terms: 'GET /api/v1/accounts/:account_id/terms',
  updateQuiz: 'PUT /api/v1/courses/:course_id/quizzes/:id',
  getQuiz: 'GET /api/v1/courses/:course_id/quizzes/:id',
  patchNewQuiz: 'PATCH /api/quiz/v1/courses/:course_id/quizzes/:assignment_id',
  listQuizzes: 'GET /api/v1/courses/:course_id/quizzes',
} as const;

/** An administrator's session as the browser holds it after a launch: the cookie and the page's action token. */
export interface AdminSession {
  cookie: string;
  actionToken: string;
}

export interface AdminRequestOptions {
  body?: unknown;
  /** Defaults to the root administrator's session; `null` sends no cookie. */
  session?: AdminSession | null;
  /** Overrides the session's action token; `null` sends none. */
  actionToken?: string | null;
  /** `sec-fetch-site`; mutations default to `same-origin`, as the dashboard sends them. */
  site?: string | null;
  headers?: Record<string, string>;
  /** Another instance of the service to send the request to. */
  app?: FastifyInstance;
}

export interface AdminBed {
  bed: OAuthTestbed;
  app: FastifyInstance;
  settings: SettingsRepository;
  /** The root administrator (LMS user 1, account 1). */
  session: AdminSession;
  /** A session as the shell renders it: the sealed cookie and the `actionToken` of the admin page's bootstrap. */
  sessionOf(principal: Principal): Promise<AdminSession>;
  request(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, options?: AdminRequestOptions): Promise<LightMyRequestResponse>;
  /** Stores the administrator's account-level grant. */
  grant(userId?: number): ReturnType<typeof storeGrant>;
  /** Connects courses through the route; fails the test when the answer is not 200. */
  connect(...courseIds: string[]): Promise<void>;
  /** Another instance of the service on the same database with changed configuration. */
  appWith(change: (config: AppConfig) => AppConfig): Promise<FastifyInstance>;
  /** Waits for work the summary started in the background. */
  idle(): Promise<void>;
  sql<T = unknown>(query: string, params?: unknown[]): Promise<T[]>;
  reset(): Promise<void>;
  close(): Promise<void>;
}

const TABLES = ['course_reset_journal', 'admin_tool_preset_assignment', 'admin_tool_preset', 'audit_entry', 'exb_student_token', 'admin_course', 'admin_account', 'assessment', 'assessment_setting', 'course_defaults', 'lease', 'lms_oauth_token', 'pre_exam_sweep', 'course_sweep_option', 'exb_exam_day_lms_read', 'exb_exam_day_roster', 'exb_exam_day_student'];

export async function createAdminBed(options: OAuthTestbedOptions = {}): Promise<AdminBed> {
  const bed = await createOAuthTestbed(options);
  const app = bed.t.app;
  const settings = createSettingsRepository(bed.t.db, bed.t.config.secrets.appSecret);
  const connection = () => bed.t.db.orm.em.getConnection();
  const extraApps: FastifyInstance[] = [];

  const sessionOf = async (principal: Principal): Promise<AdminSession> => {
    const { cookie } = sessionFor(app, principal);
    const page = await app.inject({ method: 'GET', url: '/lti/launch', headers: { cookie } });
    const token = bootstrapOf(page.body).actionToken;
    return { cookie, actionToken: typeof token === 'string' ? token : '' };
  };
  const session = await sessionOf(admin());

  const request: AdminBed['request'] = (method, url, options = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    const current = options.session === undefined ? session : options.session;
    if (current !== null) headers.cookie = current.cookie;
    const token = options.actionToken === undefined ? current?.actionToken : options.actionToken;
    if (method !== 'GET' && token !== undefined && token !== null) headers[ACTION_TOKEN_HEADER] = token;
    const site = options.site === undefined ? (method === 'GET' ? null : 'same-origin') : options.site;
    if (site !== null) headers['sec-fetch-site'] = site;
    const body = options.body ?? (method === 'GET' ? undefined : {});
    return (options.app ?? app).inject({ method, url, headers, ...(body !== undefined ? { payload: body as Record<string, unknown> } : {}) });
  };

  return {
    bed,
    app,
    settings,
    session,
    sessionOf,
    request,
    grant: (userId = 1) => storeGrant(bed, userId, ADMIN_AND_APPLICATION_SCOPES),
    async connect(...courseIds) {
      const response = await request('POST', '/api/admin/courses/connect', { body: { courseIds } });
      if (response.statusCode !== 200) throw new Error(`connect failed: ${response.statusCode} ${response.body}`);
    },
    async appWith(change) {
      const other = await buildApp({ config: change(bed.t.config), logger: createLogger('silent'), db: bed.t.db, oauth: FAST_OAUTH });
      await other.ready();
      extraApps.push(other);
      return other;
    },
    idle: allBackgroundWorkIdle,
    sql: <T>(query: string, params: unknown[] = []) => connection().execute<T[]>(query, params),
    async reset() {
      await allBackgroundWorkIdle();
      bed.lms.reset();
      bed.msw.resetHandlers();
      for (const table of TABLES) await connection().execute(`delete from ${table}`, [], 'run');
    },
    async close() {
      await allBackgroundWorkIdle();
      for (const other of extraApps) await other.close();
      await bed.close();
    },
  };
}
