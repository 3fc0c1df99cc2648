import { ErrorCodes, errorStatus } from '@exb/shared/error-codes.js';
import type { FastifyInstance } from 'fastify';
import { APPLICATION_SCOPES, ADMIN_SCOPES, EXAM_DAY_SCOPES } from '@exb/shared/oauth-scopes.js';
import {
  DETECTOR_SCRIPT_ROUTE,
  HEALTH_ROUTE,
  LOGIN_PAGE_ROUTE,
  LTI_CONFIG_ROUTE,
  LTI_LAUNCH_ROUTE,
  LTI_LOGIN_ROUTE,
  THEME_LOADER_ROUTE,
  TOOL_KEYS_ROUTE,
} from '@exb/shared/service-paths.js';
import type { AppContext } from '../../../context.js';
import { isDatabaseUnavailable, StatementTimeoutError } from '../../../db/unavailable.js';
import { buildRegistrationDocument } from '../../../domain/lti-registration.js';
import { translator } from '../../../i18n/translator.js';
import { requestLocale } from '../../../security/session.js';
import { htmlSecurityHeaders } from '../../../pages/shell.js';
import { SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS } from '../../kit/service-unavailable.js';
import { staticPage } from '../../../pages/static-page.js';

const UP = { status: 'UP' } as const;

/** How long `/ready` waits for the database: well below a probe's usual timeout. */
export const READY_TIMEOUT_MS = 2_000;

/** `work`, or a database timeout after `ms`; `work` goes on alone (it ends by its own statement limit). */
function withinDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new StatementTimeoutError(ms)), ms);
  });
  work.catch(() => undefined);
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

/** Public and health routes, the key set and the registration document (Document 1, "Public and health"). */
export async function registerPublicRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const { config, shell, db } = ctx;
  const base = config.baseUrl;

  // Built once: the values only change with the configuration.
  const registration = buildRegistrationDocument({
    baseUrl: base,
    lmsPlatform: config.lmsPlatform,
    courseNavigationVisibleToStudents: config.lti.courseNavigationVisibleToStudents,
  });
  const keySet = { keys: ctx.toolKeys.map((key) => key.publicJwk) };
  const setupValues = {
    toolUrl: `${base}${LTI_LAUNCH_ROUTE.path}`,
    healthUrl: `${base}${HEALTH_ROUTE.path}`,
    ltiConfigUrl: `${base}${LTI_CONFIG_ROUTE.path}`,
    jwksUrl: `${base}${TOOL_KEYS_ROUTE.path}`,
    detectorUrl: `${base}${DETECTOR_SCRIPT_ROUTE.path}`,
    themeLoaderUrl: `${base}${THEME_LOADER_ROUTE.path}`,
    ltiLoginUrl: `${base}${LTI_LOGIN_ROUTE.path}`,
    oauthRedirectUri: config.oauth.redirectUri,
    applicationScopes: [...APPLICATION_SCOPES],
    adminScopes: [...ADMIN_SCOPES],
    /** Addition: the exam-day board's read scopes, asked for with `LMS_OAUTH_EXAM_DAY_SCOPES` (and whether it is on). */
    examDayScopes: Object.values(EXAM_DAY_SCOPES),
    examDayScopesRequested: config.oauth.examDayScopes,
    lmsUrl: config.lmsUrl,
  };

  app.get('/', async (_request, reply) => {
    const testbed = config.testbedEnabled
      ? {
          lmsUrl: config.lmsUrl,
          launchPageUrl: config.usesDevelopmentLms ? `${config.lmsUrl}/` : undefined,
          ltiIssuer: config.lti.issuer,
          ltiClientId: config.lti.clientId,
          deploymentIds: config.lti.deploymentIds,
          databaseMode: db.mode,
          configEncryptionEnabled: config.exb.configEncryptionEnabled,
        }
      : undefined;
    const lmsRefusal = ctx.oauth.refusals.last();
    return shell.send(reply, { view: 'service-status', status: 'UP', ...(testbed ? { testbed } : {}), ...(lmsRefusal ? { lmsRefusal } : {}) });
  });

  app.get(LOGIN_PAGE_ROUTE.path, async (request, reply) => {
    const locale = requestLocale(request);
    const t = translator(locale);
    const html = staticPage(locale, t('launch:outsideLms.title'), [t('launch:outsideLms.works'), t('launch:outsideLms.openFromLms')]);
    return reply.headers(htmlSecurityHeaders(config.lmsUrl)).type('text/html; charset=utf-8').send(html);
  });

  for (const path of [HEALTH_ROUTE.path, '/login/health', '/js/health']) {
    app.get(path, async (_request, reply) => reply.header('cache-control', 'no-store').send(UP));
  }

  // A probe that waits longer than its own timeout counts as failed anyway; it gets a clear answer before that.
  const readyTimeoutMs = Math.min(READY_TIMEOUT_MS, config.databaseTimeoutMs);
  app.get('/ready', async (request, reply) => {
    reply.header('cache-control', 'no-store');
    try {
      const pending = await withinDeadline(db.pendingMigrations(), readyTimeoutMs);
      if (pending.length > 0) return reply.code(errorStatus(ErrorCodes.SERVICE_UNAVAILABLE)).send({ status: 'MIGRATIONS_PENDING', pendingMigrations: pending.length });
      return reply.send({ status: 'READY' });
    } catch (error) {
      // Probes ask every few seconds: an outage is reported once, like the requests it fails.
      if (isDatabaseUnavailable(error)) ctx.databaseOutage.refused(error);
      else request.log.warn({ err: error }, 'readiness check failed');
      return reply.code(errorStatus(ErrorCodes.SERVICE_UNAVAILABLE)).header('retry-after', String(SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS)).send({ status: 'DATABASE_UNAVAILABLE' });
    }
  });

  app.get('/setup', async (_request, reply) => shell.send(reply, { view: 'admin-setup', ...setupValues }));
  app.get('/setup/guide', async (_request, reply) =>
    shell.send(reply, { view: 'admin-setup', detailed: true, ...setupValues }),
  );

  // Browsers ask for it on every page; an empty answer keeps 404 noise out of logs and consoles.
  app.get('/favicon.ico', async (_request, reply) => reply.code(204).header('cache-control', 'public, max-age=86400').send());

  app.get(TOOL_KEYS_ROUTE.path, async (_request, reply) =>
    reply.header('cache-control', 'public, max-age=300').send(keySet),
  );

  app.get(LTI_CONFIG_ROUTE.path, async (_request, reply) => reply.type('application/json; charset=utf-8').send(registration));
}
