import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { DETECTOR_SCRIPT_ROUTE } from '@exb/shared/service-paths.js';
import { registerDetectorRoutes, type DetectorRouteContext } from '@exb/server/http/routes/sessionless/detector.js';
import { formatLoadResult, mergeResults, runLoad, type LoadResult } from './load.js';

export interface DetectorBenchOptions {
  /** Milliseconds per measured round and target (default 3000). */
  durationMs?: number;
  /** Alternating rounds per target, so drift in the machine hits both alike (default 3). */
  rounds?: number;
  connections?: number;
  /** Where the built detector bundles are; defaults to the detector workspace's dist folder. */
  distDir?: string;
}

export interface DetectorBenchResult {
  detector: LoadResult;
  revalidation: LoadResult;
  staticRoute: LoadResult;
  /** Detector requests per second over the static route's: 1 means the cached script costs what a static string does. */
  ratio: number;
}

const STATIC_PATH = '/bench/static';

/** Production settings: the configuration tuple is injected once, so requests measure the cached path. */
const PRODUCTION_CONTEXT: DetectorRouteContext = {
  config: {
    baseUrl: 'https://exb.example.edu',
    lmsUrl: 'https://lms.example.edu',
    production: true,
    testbedEnabled: false,
    lti: { clientId: '10000000000001', deploymentIds: ['1:8865aa05b4b79b64a91a86042e43af5ea8ae79eb'] },
    exb: { debugEnabled: false, detectorDiagnosticsEnabled: false },
  },
};

/**
 * The cached detector script against a bare route answering a static string of the same size, both in one Fastify
 * instance on a loopback port. The load loop runs in the same process, so absolute numbers include the client's cost;
 * the ratio is what the comparison is for.
 */
export async function benchDetector(options: DetectorBenchOptions = {}): Promise<DetectorBenchResult> {
  const app = Fastify({ logger: false });
  await registerDetectorRoutes(app, PRODUCTION_CONTEXT, options.distDir === undefined ? {} : { distDir: options.distDir });
  // Sized after the first injection, which also seals the route table.
  let staticBody = '';
  app.get(STATIC_PATH, async (_request, reply) => reply.type('application/javascript; charset=utf-8').send(staticBody));
  const probe = await app.inject({ method: 'GET', url: DETECTOR_SCRIPT_ROUTE.path });
  if (probe.statusCode !== 200 || probe.headers.etag === undefined) {
    throw new Error(`detector route answered ${probe.statusCode}; run \`npm run build\` first`);
  }
  staticBody = 'x'.repeat(probe.rawPayload.length);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;

  const durationMs = options.durationMs ?? 3_000;
  const rounds = options.rounds ?? 3;
  const connections = options.connections ?? 16;
  const targets = {
    detector: { url: `${origin}${DETECTOR_SCRIPT_ROUTE.path}` },
    revalidation: { url: `${origin}${DETECTOR_SCRIPT_ROUTE.path}`, headers: { 'if-none-match': String(probe.headers.etag) }, expectStatus: 304 },
    staticRoute: { url: `${origin}${STATIC_PATH}` },
  } as const;
  const results: Record<keyof typeof targets, LoadResult[]> = { detector: [], revalidation: [], staticRoute: [] };

  try {
    for (const target of Object.values(targets)) await runLoad({ ...target, connections, durationMs: Math.min(durationMs, 1_000) });
    for (let round = 0; round < rounds; round += 1) {
      for (const [name, target] of Object.entries(targets) as [keyof typeof targets, (typeof targets)[keyof typeof targets]][]) {
        results[name].push(await runLoad({ ...target, connections, durationMs }));
      }
    }
  } finally {
    await app.close();
  }
  const detector = mergeResults(results.detector);
  const staticRoute = mergeResults(results.staticRoute);
  return {
    detector,
    revalidation: mergeResults(results.revalidation),
    staticRoute,
    ratio: detector.requestsPerSecond / staticRoute.requestsPerSecond,
  };
}

export function formatDetectorBench(result: DetectorBenchResult): string {
  return [
    formatLoadResult('detector script (cached, 200)', result.detector),
    formatLoadResult('detector revalidation (304)', result.revalidation),
    formatLoadResult('static string route (200)', result.staticRoute),
    `detector / static requests per second: ${result.ratio.toFixed(3)}`,
  ].join('\n');
}
