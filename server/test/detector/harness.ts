import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { DETECTOR_CONFIG_MARKER } from '@exb/shared/detector-config.js';
import { registerDetectorRoutes, type DetectorRouteContext, type DetectorRouteOptions } from '../../src/http/routes/sessionless/detector.js';
import { registerErrorHandlers } from '../../src/http/kit/errors.js';
import { createLogger } from '../../src/logger.js';

export const SERVICE = 'https://exb.example.test';
export const LMS = 'https://lms.example.test';
export const CLIENT_ID = '10000000000077';
export const DEPLOYMENT_IDS = ['1:abc', '2:def'];

/** Stand-in bundles: distinct per file, each with the marker once, so tests do not depend on a detector build. */
export const FAKE_BUNDLES: Record<string, string> = {
  'lms-exb-detector.js': `(()=>{const c=${DETECTOR_CONFIG_MARKER};globalThis.exbDetector=c})();/*${'d'.repeat(2000)}*/\n`,
  'lms-exb-detector.debug.js': `// readable detector\n(() => {\n  const config = ${DETECTOR_CONFIG_MARKER};\n  globalThis.exbDetector = config;\n})();\n`,
  'lms-exb-theme-loader.js': `(()=>{const c=${DETECTOR_CONFIG_MARKER};globalThis.exbLoader=c})();\n`,
  'lms-exb-theme-loader.debug.js': `// readable theme loader\n(() => {\n  const config = ${DETECTOR_CONFIG_MARKER};\n  globalThis.exbLoader = config;\n})();\n`,
};

export function fakeDistDir(files: Record<string, string> = FAKE_BUNDLES): { dir: string; remove(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'exb-detector-dist-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface ContextOverrides {
  baseUrl?: string;
  lmsUrl?: string;
  production?: boolean;
  testbedEnabled?: boolean;
  clientId?: string;
  deploymentIds?: string[];
  debugEnabled?: boolean;
  detectorDiagnosticsEnabled?: boolean;
}

export function routeContext(overrides: ContextOverrides = {}): DetectorRouteContext {
  return {
    config: {
      baseUrl: overrides.baseUrl ?? SERVICE,
      lmsUrl: overrides.lmsUrl ?? LMS,
      production: overrides.production ?? false,
      testbedEnabled: overrides.testbedEnabled ?? false,
      lti: { clientId: overrides.clientId ?? CLIENT_ID, deploymentIds: overrides.deploymentIds ?? DEPLOYMENT_IDS },
      exb: {
        debugEnabled: overrides.debugEnabled ?? false,
        detectorDiagnosticsEnabled: overrides.detectorDiagnosticsEnabled ?? false,
      },
    },
  };
}

export interface DetectorApp {
  app: FastifyInstance;
  /** The raw log output, for leak checks. */
  logText(): string;
  /** The recorded diagnostics, parsed. */
  traceEntries(): Record<string, unknown>[];
}

/** Only the detector routes, on an app with the service's logger and error handlers; no database. */
export async function detectorApp(ctx: DetectorRouteContext, options: DetectorRouteOptions = {}): Promise<DetectorApp> {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  const app = Fastify({ loggerInstance: createLogger('info', sink) as FastifyBaseLogger });
  registerErrorHandlers(app);
  await registerDetectorRoutes(app, ctx, options);
  await app.ready();
  return {
    app,
    logText: () => lines.join('\n'),
    traceEntries() {
      return lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((entry) => 'detectorTrace' in entry);
    },
  };
}

/** The configuration a served script carries, read back by cutting the bundle's text around the marker. */
export function injectedConfig(served: string, bundleSource: string): unknown {
  const [prefix, suffix] = bundleSource.split(DETECTOR_CONFIG_MARKER) as [string, string];
  if (!served.startsWith(prefix) || !served.endsWith(suffix)) throw new Error('served script is not the bundle');
  return JSON.parse(served.slice(prefix.length, served.length - suffix.length));
}

/** Response headers without the ones that differ per response. */
export function stableHeaders(headers: Record<string, unknown>): Record<string, unknown> {
  const { date: _date, connection: _connection, 'keep-alive': _keepAlive, ...rest } = headers;
  return rest;
}
