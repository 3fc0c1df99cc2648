import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DETECTOR_SCRIPT_ALIAS_ROUTE, DETECTOR_SCRIPT_ROUTE, DETECTOR_TRACE_ROUTE, THEME_LOADER_ROUTE } from '@exb/shared/service-paths.js';
import { ErrorCodes, errorStatus } from '@exb/shared/error-codes.js';
import type { AppConfig } from '../../../config/app-config.js';
import {
  DetectorBundlesMissingError,
  DetectorScripts,
  isNotModified,
  type DetectorScriptName,
} from '../../../lms-scripts/script-cache.js';
import { DetectorTraces, TRACE_BODY_LIMIT_BYTES } from '../../../lms-scripts/trace.js';
import { sendError } from '../../kit/error-body.js';
import { allowLmsOrigin } from '../../kit/lms-cors.js';

/** The part of the configuration the detector routes read; the full application context satisfies it. */
export interface DetectorRouteContext {
  config: Pick<AppConfig, 'baseUrl' | 'lmsUrl' | 'production' | 'testbedEnabled'> & {
    lti: Pick<AppConfig['lti'], 'clientId' | 'deploymentIds'>;
    exb: Pick<AppConfig['exb'], 'debugEnabled' | 'detectorDiagnosticsEnabled'>;
  };
}

export interface DetectorRouteOptions {
  /** Where the built bundles are; defaults to the detector workspace's dist folder. */
  distDir?: string;
}

/** The LMS scripts and the diagnostics sink (Document 3, "Detector scripts, diagnostics, video player"). */
export async function registerDetectorRoutes(
  app: FastifyInstance,
  ctx: DetectorRouteContext,
  options: DetectorRouteOptions = {},
): Promise<void> {
  await registerDetectorScriptRoutes(app, ctx, options);
  await registerDetectorTraceRoutes(app, ctx);
}

/**
 * The LMS scripts alone: pages load them with script tags, so they need no CORS grant, and the service registers them
 * where no CORS hook runs.
 */
export async function registerDetectorScriptRoutes(
  app: FastifyInstance,
  ctx: DetectorRouteContext,
  options: DetectorRouteOptions = {},
): Promise<void> {
  const scripts = loadScripts(app, ctx, options.distDir);

  const serve = (name: DetectorScriptName) => async (request: FastifyRequest, reply: FastifyReply) => {
    if (scripts === null) {
      return reply
        .code(errorStatus(ErrorCodes.SERVICE_UNAVAILABLE))
        .headers({ 'cache-control': 'no-store', 'content-type': 'text/plain; charset=utf-8' })
        .send('The LMS scripts are not built. Run `npm run build`.');
    }
    const script = scripts.script(name);
    // `no-cache` lets the browser keep the script but ask every time; the entity tag turns that into a bodiless 304.
    if (isNotModified(script, request.headers['if-none-match'])) return reply.code(304).headers(script.headers).send();
    return reply.headers(script.headers).send(script.body);
  };
  const detector = serve('lms-exb-detector');
  app.get(DETECTOR_SCRIPT_ROUTE.path, detector);
  app.get(DETECTOR_SCRIPT_ALIAS_ROUTE.path, detector);
  app.get(THEME_LOADER_ROUTE.path, serve('lms-exb-theme-loader'));
}

/** The diagnostics sink the detector posts traces to from LMS pages. */
export async function registerDetectorTraceRoutes(app: FastifyInstance, ctx: DetectorRouteContext): Promise<void> {
  const { config } = ctx;
  const traces = new DetectorTraces({
    debug: config.exb.debugEnabled,
    diagnostics: config.exb.detectorDiagnosticsEnabled,
    testbed: config.testbedEnabled,
    lmsOrigin: config.lmsUrl,
  });
  allowLmsOrigin(app, ctx, { paths: [DETECTOR_TRACE_ROUTE.path], methods: ['POST'], headers: ['content-type'] });
  app.post(DETECTOR_TRACE_ROUTE.path, { bodyLimit: TRACE_BODY_LIMIT_BYTES }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    const admission = await traces.admit(request.headers.origin);
    if (admission.outcome === 'disabled') return reply.send({ enabled: false });
    if (admission.outcome === 'limited') {
      reply.header('retry-after', String(admission.retryAfterSeconds));
      return sendError(reply, ErrorCodes.RATE_LIMITED, 'Too many diagnostic events from this origin. Try again in a minute.');
    }
    request.log.info(
      traces.entry(admission.origin, request.body, {
        userAgent: request.headers['user-agent'],
        referer: request.headers.referer,
      }),
      'detector trace',
    );
    return reply.send({ enabled: true });
  });
}

/**
 * A missing build stops a production start: without the scripts no quiz page can be unlocked. Elsewhere the service
 * starts anyway (route tests run without a build) and the script routes say what to do.
 */
function loadScripts(app: FastifyInstance, ctx: DetectorRouteContext, distDir: string | undefined): DetectorScripts | null {
  const { config } = ctx;
  const settings = {
    baseUrl: config.baseUrl,
    ltiClientId: config.lti.clientId,
    deploymentIds: config.lti.deploymentIds,
    debug: config.exb.debugEnabled,
    diagnostics: config.exb.detectorDiagnosticsEnabled,
    production: config.production,
  };
  try {
    return DetectorScripts.load(settings, distDir);
  } catch (error) {
    if (config.production || !(error instanceof DetectorBundlesMissingError)) throw error;
    app.log.warn({ files: error.files }, 'detector bundles not found; run `npm run build`');
    return null;
  }
}
