import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { delay, http } from 'msw';
import { APPLICATION_SCOPES } from '@exb/shared/oauth-scopes.js';
import { buildApp } from '../../src/app.js';
import type { AppConfig } from '../../src/config/app-config.js';
import type { Principal } from '../../src/identity/principal.js';
import { createSettingsRepository, type SettingsRepository } from '../../src/domain/settings/settings-repository.js';
import { createLogger } from '../../src/logger.js';
import { createOAuthTestbed, FAST_OAUTH, LMS_URL, storeGrant, type OAuthTestbed } from '../support/oauth-testbed.js';
import { instructor, sessionFor } from '../support/sessions.js';

export { LMS_URL };

/** LMS route keys the instructor flows use, as faults and the call log name them. */
export const LMS_ROUTES = {
  updateQuiz: 'PUT /api/v1/courses/:course_id/quizzes/:id',
  patchNewQuiz: 'PATCH /api/quiz/v1/courses/:course_id/quizzes/:assignment_id',
  listQuizzes: 'GET /api/v1/courses/:course_id/quizzes',
  listAssignments: 'GET /api/v1/courses/:course_id/assignments',
  listCourses: 'GET /api/v1/courses',
} as const;

export const COURSE = '101';
export const OTHER_COURSE = '102';

export interface RequestOptions {
  body?: unknown;
  /** Defaults to the instructor of course 101. */
  cookie?: string | null;
  /** `sec-fetch-site`; mutations default to `same-origin` as the tool's own pages send it. */
  site?: string | null;
  headers?: Record<string, string>;
  app?: FastifyInstance;
}

export interface InstructorBed {
  bed: OAuthTestbed;
  app: FastifyInstance;
  settings: SettingsRepository;
  /** The instructor (LMS user 2, teacher of 101, 102, 103 and 105) of course 101. */
  cookie: string;
  sessionCookie(principal: Principal, app?: FastifyInstance): string;
  request(method: 'GET' | 'POST' | 'PUT', url: string, options?: RequestOptions): Promise<LightMyRequestResponse>;
  /** Stores an OAuth grant for the instructor through the real token repository; returns the issued tokens. */
  grant(userId?: number): ReturnType<typeof storeGrant>;
  /** Discovers course 101's assessments (needs a grant). */
  discover(): Promise<void>;
  /** Gives course 101 an exit password so enforcement can be turned on. */
  courseExitPassword(value?: string): Promise<void>;
  /** Another instance of the service on the same database with changed configuration. */
  appWith(config: (config: AppConfig) => AppConfig): Promise<FastifyInstance>;
  /** Makes the LMS take `ms` before answering a route (the request then reaches the mocked LMS as usual). */
  slowLms(method: 'get' | 'put' | 'patch', path: string, ms: number, before?: () => Promise<void> | void): void;
  sql<T = unknown>(query: string, params?: unknown[]): Promise<T[]>;
  reset(): Promise<void>;
  close(): Promise<void>;
}

export async function createInstructorBed(): Promise<InstructorBed> {
  const bed = await createOAuthTestbed();
  const app = bed.t.app;
  const settings = createSettingsRepository(bed.t.db, bed.t.config.secrets.appSecret);
  const extraApps: FastifyInstance[] = [];
  const cookie = sessionFor(app, instructor()).cookie;
  const connection = () => bed.t.db.orm.em.getConnection();

  const request: InstructorBed['request'] = async (method, url, options = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    const sessionCookie = options.cookie === undefined ? cookie : options.cookie;
    if (sessionCookie !== null) headers.cookie = sessionCookie;
    const site = options.site === undefined ? (method === 'GET' ? null : 'same-origin') : options.site;
    if (site !== null) headers['sec-fetch-site'] = site;
    // Mutations travel as JSON, as the tool's pages send them; a route without a body gets an empty object.
    const body = options.body ?? (method === 'GET' ? undefined : {});
    return (options.app ?? app).inject({
      method,
      url,
      headers,
      ...(body !== undefined ? { payload: body as Record<string, unknown> } : {}),
    });
  };

  const self: InstructorBed = {
    bed,
    app,
    settings,
    cookie,
    sessionCookie: (principal, target = app) => sessionFor(target, principal).cookie,
    request,
    grant: (userId = 2) => storeGrant(bed, userId, APPLICATION_SCOPES),
    async discover() {
      const response = await request('POST', `/api/quizzes/course/${COURSE}/refresh`);
      if (response.statusCode !== 200) throw new Error(`discovery failed: ${response.statusCode} ${response.body}`);
    },
    async courseExitPassword(value = 'course-exit-1') {
      const response = await request('PUT', `/api/quizzes/course/${COURSE}/defaults`, { body: { quitPassword: value } });
      if (response.statusCode !== 200) throw new Error(`defaults failed: ${response.statusCode} ${response.body}`);
    },
    async appWith(change) {
      const other = await buildApp({ config: change(bed.t.config), logger: createLogger('silent'), db: bed.t.db, oauth: FAST_OAUTH });
      await other.ready();
      extraApps.push(other);
      return other;
    },
    slowLms(method, path, ms, before) {
      bed.msw.use(
        http[method](`${LMS_URL}${path}`, async () => {
          await before?.();
          await delay(ms);
          // Returning nothing hands the request on to the mocked LMS's own handler.
        }),
      );
    },
    async sql<T>(query: string, params: unknown[] = []) {
      return connection().execute<T[]>(query, params);
    },
    async reset() {
      bed.lms.reset();
      bed.msw.resetHandlers();
      for (const table of ['assessment', 'assessment_setting', 'course_defaults', 'lease', 'lms_oauth_token']) {
        await connection().execute(`delete from ${table}`, [], 'run');
      }
    },
    async close() {
      for (const other of extraApps) await other.close();
      await bed.close();
    },
  };
  return self;
}
