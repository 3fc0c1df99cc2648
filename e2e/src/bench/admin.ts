import { mkdtempSync, rmSync } from 'node:fs';
import { ADMIN_COURSES_ROUTE, ADMIN_SUMMARY_ROUTE, LTI_LAUNCH_ROUTE } from '@exb/shared/service-paths.js';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { ADMIN_AND_APPLICATION_SCOPES } from '@exb/shared/oauth-scopes.js';
import { buildApp } from '@exb/server';
import { loadConfig } from '@exb/server/config/app-config.js';
import { openDatabase, type Database } from '@exb/server/db/orm.js';
import { freePort } from '@exb/server/free-port.js';
import { BindingRepository } from '@exb/server/identity/binding-repository.js';
import { createLogger } from '@exb/server/logger.js';
import { createOAuthServices } from '@exb/server/oauth/services.js';
import { ActionTokens } from '@exb/server/security/action-token.js';
import { OneTimeStore } from '@exb/server/security/one-time-store.js';
import { deriveKey } from '@exb/server/security/derived-keys.js';
import { randomToken } from '@exb/server/security/random-token.js';
import { SESSION_COOKIE_NAME } from '@exb/server/security/session-cookie.js';
import { opaqueId } from '../lms/ids.js';
import { createMockLms, type MockLms, type RunningLmsServer } from '../lms/index.js';
import { assertLoopback, formatLoadResult, mergeResults, runLoad, type LoadResult } from './load.js';
import { benchDatabase } from './bench-database.js';

/**
 * The administrator's lists at school scale: 2,000 connected courses with 20,000 assessments (a third of them with a
 * setting, half of those enforced), measured through the real routes on loopback beside a bare route of the same
 * application: the summary, the first page of the course list, its 80th (last) page from a keyset cursor, and a
 * search. The administrator is confirmed and the account facts are read once through the development LMS; after that
 * these routes make no LMS call, so what is measured is the service and PostgreSQL.
 */

export interface AdminBenchOptions {
  durationMs?: number;
  rounds?: number;
  connections?: number;
}

export interface AdminBenchResult {
  bare: LoadResult;
  targets: { label: string; result: LoadResult }[];
  courses: number;
  assessments: number;
}

const ACCOUNT = '1';
const ADMIN = { lmsUserId: '1', ltiSubject: 'bench-admin-1' };
const COURSES = 2_000;
const ASSESSMENTS_PER_COURSE = 10;
const PAGE_SIZE = 25;
const SUBJECTS = ['Algebra', 'Biology', 'Chemistry', 'Drama', 'Economics', 'French', 'Geology', 'History', 'Latin', 'Music'];

export async function benchAdmin(options: AdminBenchOptions = {}): Promise<AdminBenchResult> {
  const durationMs = options.durationMs ?? 3_000;
  const rounds = options.rounds ?? 3;
  const connections = options.connections ?? 16;
  const setup = await startService();
  try {
    const headers = { cookie: setup.cookie };
    const get = async (pathAndQuery: string) => {
      const response = await fetch(new URL(pathAndQuery, setup.origin), { headers });
      if (response.status !== 200) throw new Error(`${pathAndQuery} answered ${response.status}: ${await response.text()}`);
      return response.json() as Promise<{ nextCursor?: string | null; courses?: unknown[] }>;
    };
    // The first summary confirms the administrator and reads the account through the LMS; later ones reuse both.
    await get(ADMIN_SUMMARY_ROUTE.path);
    const last = await lastPageCursor(get);
    const targets: Record<string, string> = {
      summary: ADMIN_SUMMARY_ROUTE.path,
      first: `${ADMIN_COURSES_ROUTE.path}?includePast=true&limit=${PAGE_SIZE}`,
      last: `${ADMIN_COURSES_ROUTE.path}?includePast=true&limit=${PAGE_SIZE}&cursor=${last.cursor}`,
      search: `${ADMIN_COURSES_ROUTE.path}?includePast=true&search=history%2012`,
    };
    const results: Record<string, LoadResult[]> = {};
    const record = (label: string, result: LoadResult) => (results[label] ??= []).push(result);
    const bare = { url: `${setup.origin}/bench/bare` };

    for (const target of [bare.url, ...Object.values(targets).map((url) => `${setup.origin}${url}`)]) {
      await runLoad({ url: target, headers, connections, durationMs: Math.min(durationMs, 500) });
    }
    for (let round = 0; round < rounds; round += 1) {
      record('bare', await runLoad({ ...bare, connections, durationMs }));
      for (const [label, url] of Object.entries(targets)) {
        record(label, await runLoad({ url: `${setup.origin}${url}`, headers, connections, durationMs }));
      }
    }
    const labels: [string, string][] = [
      ['summary', 'summary (aggregates)'],
      ['first', `courses, page 1 of ${last.pages}`],
      ['last', `courses, page ${last.pages} (keyset cursor)`],
      ['search', 'courses, search'],
    ];
    return {
      bare: mergeResults(results.bare!),
      targets: labels.map(([key, label]) => ({ label, result: mergeResults(results[key]!) })),
      courses: COURSES,
      assessments: COURSES * ASSESSMENTS_PER_COURSE,
    };
  } finally {
    await setup.close();
  }
}

/** Walks every page once, as an administrator paging through would, and returns the cursor of the last page. */
async function lastPageCursor(get: (url: string) => Promise<{ nextCursor?: string | null; courses?: unknown[] }>) {
  let cursor: string | null = null;
  let previous: string | null = null;
  let pages = 0;
  let listed = 0;
  do {
    const page = await get(`${ADMIN_COURSES_ROUTE.path}?includePast=true&limit=${PAGE_SIZE}${cursor === null ? '' : `&cursor=${cursor}`}`);
    pages += 1;
    listed += page.courses?.length ?? 0;
    previous = cursor;
    cursor = page.nextCursor ?? null;
  } while (cursor !== null);
  if (listed !== COURSES || previous === null) throw new Error(`the list held ${listed} courses in ${pages} pages`);
  return { cursor: previous, pages };
}

export function formatAdminBench(result: AdminBenchResult): string {
  const ratio = (r: LoadResult) => `${(r.requestsPerSecond / result.bare.requestsPerSecond).toFixed(3)} of bare`;
  return [
    `${result.courses.toLocaleString('en-US')} connected courses, ${result.assessments.toLocaleString('en-US')} assessments`,
    formatLoadResult('bare Fastify route (200)', result.bare),
    ...result.targets.map(({ label, result: r }) => `${formatLoadResult(label, r)}  ${ratio(r)}`),
  ].join('\n');
}

export interface Setup {
  origin: string;
  cookie: string;
  /** A fresh action token of the administrator's session, for mutations. */
  actionToken(): string;
  close(): Promise<void>;
}

export interface ServiceOptions {
  /** Writes the school into the database and the development LMS; by default the course lists' school. */
  seed?: (db: Database, lms: MockLms) => Promise<void>;
}

export async function startService(options: ServiceOptions = {}): Promise<Setup> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'exb-bench-admin-'));
  const logger = createLogger('silent');
  const database = await benchDatabase(dataDir);
  const servicePort = await freePort();
  const origin = `http://127.0.0.1:${servicePort}`;
  let lms: MockLms | undefined;
  let lmsServer: RunningLmsServer | undefined;
  let db: Database | undefined;
  let app: FastifyInstance | undefined;
  const close = async () => {
    await app?.close();
    await lmsServer?.close();
    await db?.close();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    lms = createMockLms({
      baseUrl: 'http://127.0.0.1:1',
      platformStorage: false,
      tool: { baseUrl: origin, clientId: '10000000000001', deploymentId: '1:bench', oauthClientId: '170000000000042', oauthClientSecret: 'bench-secret' },
    });
    lmsServer = await lms.startHttpServer({ port: 0 });
    assertLoopback(new URL(lms.baseUrl));
    const config = loadConfig({
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      BASE_URL: origin,
      PORT: String(servicePort),
      HOST: '127.0.0.1',
      LMS_URL: lms.baseUrl,
      LMS_OAUTH_CLIENT_ID: '170000000000042',
      LMS_OAUTH_CLIENT_SECRET: 'bench-secret',
      DATA_DIR: dataDir,
      ...(database.url === undefined ? {} : { DATABASE_URL: database.url }),
    });
    db = await openDatabase({ databaseUrl: database.url, dataDir, logger, poolSize: 20 });
    await db.migrate();
    await (options.seed ?? seed)(db, lms);

    const oauth = createOAuthServices(config, db.orm, new OneTimeStore(db.pool, deriveKey(config.secrets.appSecret, 'one-time-store')), logger);
    const issued = lms.oauth.issueToken({ user: Number(ADMIN.lmsUserId), scopes: ADMIN_AND_APPLICATION_SCOPES, expiresIn: null });
    await oauth.oauth.tokens.saveAuthorization({
      lmsUserId: ADMIN.lmsUserId,
      scopes: ADMIN_AND_APPLICATION_SCOPES,
      accessToken: issued.accessToken,
      refreshToken: issued.refreshToken,
      expiresInSeconds: null,
      lmsUserName: issued.response.user.name,
      lmsGlobalUserId: issued.response.user.global_id,
      lmsRegion: issued.response.canvas_region,
      accountId: ACCOUNT,
      ltiIssuer: config.lti.issuer,
      ltiSubject: ADMIN.ltiSubject,
    });
    const ltiContextId = opaqueId('account', Number(ACCOUNT));
    await new BindingRepository(db.orm).recordContext({ issuer: config.lti.issuer, kind: 'account', ltiContextId, lmsId: ACCOUNT }, { lmsUserId: ADMIN.lmsUserId, role: 'administrator' });

    app = await buildApp({ config, logger, db });
    app.get('/bench/bare', async () => ({ success: true }));
    await app.listen({ port: servicePort, host: '127.0.0.1' });
    const session = {
      sid: randomToken(),
      principal: { kind: 'admin' as const, ...ADMIN, issuer: config.lti.issuer, deploymentId: '1:bench', ltiContextId, accountId: ACCOUNT },
      launchTarget: LTI_LAUNCH_ROUTE.path,
      exbLaunches: {},
      createdAt: Date.now(),
    };
    // The session plugin's own sealing, so the cookie is exactly what a launch would have set.
    const sessions = app as unknown as { createSecureSession(data: unknown): unknown; encodeSecureSession(session: unknown): string };
    const sealed = sessions.encodeSecureSession(sessions.createSecureSession({ data: session }));
    const tokens = ActionTokens.fromAppSecret(config.secrets.appSecret);
    return {
      origin,
      cookie: `${SESSION_COOKIE_NAME}=${encodeURIComponent(sealed)}`,
      actionToken: () => tokens.issue(session, 'admin-mutation'),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * The school, written straight into the tables in a few statements: the courses' connection records, their
 * assessments and the settings of a third of them (half enforced). The counting triggers run as for any writer.
 */
async function seed(db: Database): Promise<void> {
  const sql = (query: string, params: unknown[] = []) => db.orm.em.getConnection().execute(query, params, 'run');
  await sql(
    `insert into admin_course (course_id, account_id, name, course_code, term_id, term_name, ends_at, origin)
     select (100000 + n)::text, ?, (array[${SUBJECTS.map(() => '?').join(', ')}])[1 + n % ${SUBJECTS.length}] || ' ' || n,
       'C-' || n, '4', 'Fall 2026', timestamptz '2026-12-20 23:00:00+00', 'admin'
     from generate_series(1, ${COURSES}) as n`,
    [ACCOUNT, ...SUBJECTS],
  );
  await sql(
    `insert into assessment (course_id, content_id, content_type, lms_assessment_id, title, published)
     select (100000 + c)::text, 'classicquiz_' || (c * 100 + q), 'CLASSIC_QUIZ', (c * 100 + q)::text, 'Quiz ' || q, true
     from generate_series(1, ${COURSES}) as c, generate_series(1, ${ASSESSMENTS_PER_COURSE}) as q`,
  );
  await sql(
    `insert into assessment_setting (course_id, content_id, exb_required, enabled, verification_status)
     select (100000 + c)::text, 'classicquiz_' || (c * 100 + q), q % 2 = 0, q % 2 = 0, 'unverified'
     from generate_series(1, ${COURSES}) as c, generate_series(1, ${ASSESSMENTS_PER_COURSE}) as q where q % 3 = 0`,
  );
  await sql(`insert into admin_account (account_id, operational_term_id, operational_term_name, operational_term_start_at, operational_term_end_at)
     values (?, '4', 'Fall 2026', timestamptz '2026-08-31 06:00:00+00', timestamptz '2026-12-20 23:00:00+00')`, [ACCOUNT]);
  await sql('analyze admin_course; analyze assessment; analyze assessment_setting');
}
