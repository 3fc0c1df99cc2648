import { readFileSync } from 'node:fs';
import http from 'node:http';
import { configKeyHashForUrl } from '@exb/server/exb/config-key.js';
import { SERVICE_ROUTES, servicePath } from '@exb/shared/service-paths.js';
import { openConfiguration } from '../exb-simulator/open.js';
import { inParallel, mergeResults, runIterations, runLoad, type LoadResult } from './load.js';
import { measured, serviceNodeFlags, type ServerProcess } from './child-server.js';
import { MemoryPhases } from './memory-phases.js';
import { startEnvironment } from './student-environment.js';
import { CLASS_SIZE, COURSE, DOWNLOAD_QUIZ, downloadPath, LTI_ISSUER, MINT_BATCH, PROXY_HEADERS, QUIZ, STUDENT } from './student-fixture.js';
import { request, timed } from './student-http.js';
import type { StudentBenchOptions, StudentBenchResult } from './student-result.js';
import { countStartStatements, START_STEPS, studentStart } from './student-start.js';
import { synchronizedStart } from './student-sync-start.js';

/**
 * The student hot paths as a synchronized exam start meets them, measured from outside. The service runs in production
 * mode in a child process of its own (its log written synchronously to a file, as a production process writes it);
 * a bare Fastify 5 server runs in a second child process in the same run; the development LMS (over TLS, since
 * production only talks HTTPS to the LMS) and the load generator run here. The two servers' CPU time is read from
 * inside them (`process.cpuUsage()`, all threads) before and after every measured window, so the CPU per request is
 * the server's own, whatever the generator costs. Windows alternate between the bare server and the service, round
 * after round, so drift in a shared machine hits both.
 *
 * Paths: the requirement check (against the bare JSON route), the detector and theme-loader scripts (against a bare
 * static string route of the detector's size), the proof (against a class's worth of stored per-download Config Keys),
 * the redemption, the download (with a fresh LMS session URL, and without one), and the whole start (LTI login →
 * launch → grant → HEAD → GET → proof → redemption, the id_token signed by the development LMS). Then a synchronized
 * start: 3,000 students, 100 at a time, each loading the quiz page's scripts and requirement and then running the
 * whole start. One-time tokens cannot be replayed, so the redemption and download windows draw from tokens the service
 * mints beforehand; a start mints its own, from its own launch.
 */

/** Windows of whole starts run before any start is measured. */
const START_WARM_UP_WINDOWS = 3;

export async function benchStudent(options: StudentBenchOptions = {}): Promise<StudentBenchResult> {
  const durationMs = options.durationMs ?? 3_000;
  const rounds = options.rounds ?? 3;
  const connections = options.connections ?? 16;
  const env = await startEnvironment(options.profileDir);
  try {
    const { bare, service } = env;
    const origin = service.origin;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 256 });
    const grantPayload = (sessionUserId: string | null) => ({
      principal: { kind: sessionUserId === null ? 'instructor' : 'student', issuer: LTI_ISSUER, ...STUDENT },
      sessionUserId,
    });
    const memory = new MemoryPhases();
    const phase = async (name: string) => memory.add(await service.memory(name));
    await phase('started');
    // Minting is the benchmark's own work in the service process: a thousand tokens at a time, so the service never
    // holds a whole window's worth at once, and kept apart from the paths' phases.
    const mint = async (purpose: 'config-grant' | 'access-proof', contentId: string, count: number, payload?: unknown) => {
      const tokens: string[] = [];
      for (let minted = 0; minted < count; minted += MINT_BATCH) {
        const batch = Math.min(MINT_BATCH, count - minted);
        tokens.push(...(await service.call<string[]>({ type: 'mint', purpose, contentId, count: batch, ...(payload === undefined ? {} : { payload }) })));
      }
      await phase('bench: minting tokens');
      return tokens;
    };

    // A class downloads: every student's configuration carries its own session URL and Config Key.
    const classGrants = await mint('config-grant', QUIZ, CLASS_SIZE, grantPayload(STUDENT.lmsUserId));
    let lastConfigKey = '';
    await inParallel(classGrants, 16, async (grant) => {
      const response = await request(agent, origin, 'GET', downloadPath(QUIZ, grant));
      if (response.status !== 200) throw new Error(`class download answered ${response.status}: ${response.body.toString()}`);
      lastConfigKey = openConfiguration(response.body, env.decryption).configKey;
    });
    const takeUrl = new URL(`/courses/${COURSE}/quizzes/201/take`, env.lmsUrl).href;
    const proofBody = JSON.stringify({ configKeyHash: configKeyHashForUrl(takeUrl, lastConfigKey), url: takeUrl });
    const proof = await request(agent, origin, 'POST', servicePath(SERVICE_ROUTES.accessProof, [COURSE, QUIZ]), proofBody, { 'content-type': 'application/json' });
    if (proof.status !== 200) throw new Error(`proof answered ${proof.status}: ${proof.body.toString()}`);
    await phase('class downloads');

    const fixed = {
      'bare-json': { server: bare, url: `${bare.origin}/bench/bare` },
      requirement: { server: service, url: `${origin}${servicePath(SERVICE_ROUTES.requirement, [COURSE, QUIZ])}`, headers: { ...PROXY_HEADERS, origin: env.lmsUrl } },
      'bare-static': { server: bare, url: `${bare.origin}/bench/static` },
      detector: { server: service, url: `${origin}${SERVICE_ROUTES.detectorScript.path}`, headers: PROXY_HEADERS },
      'theme-loader': { server: service, url: `${origin}${SERVICE_ROUTES.themeLoader.path}`, headers: PROXY_HEADERS },
      proof: {
        server: service,
        url: `${origin}${servicePath(SERVICE_ROUTES.accessProof, [COURSE, QUIZ])}`,
        method: 'POST',
        headers: { ...PROXY_HEADERS, origin: env.lmsUrl, 'content-type': 'application/json' },
        body: proofBody,
      },
    } as const;
    const windows: Record<string, { result: LoadResult; cpuMicros: number }[]> = {};
    const record = async (key: string, server: ServerProcess, window: { result: LoadResult; cpuMicros: number }) => {
      (windows[key] ??= []).push(window);
      await phase(server === service ? key : 'idle (bare server measured)');
    };

    // Warm-up: caches, JIT, connection pools.
    for (const { server: _server, ...target } of Object.values(fixed)) {
      await runLoad({ ...target, connections, durationMs: Math.min(durationMs, 500) });
    }
    const startTakeUrl = new URL(`/courses/${COURSE}/quizzes/202/take`, env.lmsUrl).href;
    // A start runs a few dozen times a second, so its code (routes, hooks, the LMS client, the container writer) needs
    // several seconds of starts before V8 has optimized it; measured earlier, a start's CPU falls from round to round
    // by a quarter as the compiler catches up. Steady state is what a class's start meets in a running service.
    await runIterations(connections, START_WARM_UP_WINDOWS * durationMs, null, () => studentStart(agent, env, startTakeUrl));
    await phase('warm-up');
    const statementsPerStart = await countStartStatements(env, agent, startTakeUrl);

    for (let round = 0; round < rounds; round += 1) {
      for (const [key, { server, ...target }] of Object.entries(fixed)) {
        await record(key, server, await measured(server, () => runLoad({ ...target, connections, durationMs })));
      }
      const proofTokens = await mint('access-proof', QUIZ, 30_000);
      await record(
        'redemption',
        service,
        await measured(service, () =>
          runIterations(connections, durationMs, proofTokens, (token) =>
            timed(agent, origin, 'POST', servicePath(SERVICE_ROUTES.accessCode, [COURSE, QUIZ]), undefined, {
              ...PROXY_HEADERS,
              origin: env.lmsUrl,
              'x-exb-proof-token': token,
            }),
          ),
        ),
      );
      await record('bare-json', bare, await measured(bare, () => runLoad({ ...fixed['bare-json'], connections, durationMs })));
      const sessionGrants = await mint('config-grant', DOWNLOAD_QUIZ, 6_000, grantPayload(STUDENT.lmsUserId));
      await record(
        'download',
        service,
        await measured(service, () =>
          runIterations(connections, durationMs, sessionGrants, (grant) => timed(agent, origin, 'GET', downloadPath(DOWNLOAD_QUIZ, grant), undefined, PROXY_HEADERS)),
        ),
      );
      // An instructor's download: a key of its own (the quiz page marked for it) stored, no LMS call.
      const instructorGrants = await mint('config-grant', DOWNLOAD_QUIZ, 15_000, grantPayload(null));
      await record(
        'download-instructor',
        service,
        await measured(service, () =>
          runIterations(connections, durationMs, instructorGrants, (grant) => timed(agent, origin, 'GET', downloadPath(DOWNLOAD_QUIZ, grant), undefined, PROXY_HEADERS)),
        ),
      );
      await record('start', service, await measured(service, () => runIterations(connections, durationMs, null, () => studentStart(agent, env, startTakeUrl))));
    }

    // Each step's share: starts cut after it, less the starts cut before it.
    const startSteps: { step: string; cpuMicros: number }[] = [];
    if (options.startSteps === true) {
      let before = 0;
      for (const until of START_STEPS) {
        const window = await measured(service, () =>
          runIterations(connections, durationMs, null, () => studentStart(agent, env, startTakeUrl, { until })),
        );
        const perStart = window.result.requests === 0 ? 0 : window.cpuMicros / window.result.requests;
        startSteps.push({ step: until, cpuMicros: perStart - before });
        before = perStart;
      }
      await phase('start, step by step');
    }

    const sync = await synchronizedStart(agent, env, startTakeUrl, options.students ?? 3_000, options.studentsAtOnce ?? 100, () =>
      phase('synchronized start, first half'),
    );
    agent.destroy();
    await phase('synchronized start, second half');
    // What the process gives back once the load is over, and what it spends doing nothing.
    const idleFrom = await service.cpu();
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    const idleCpuMicrosPerSecond = ((await service.cpu()).micros - idleFrom.micros) / 5;
    await phase('5 s idle afterwards');

    const merged = (key: string) => {
      const list = windows[key]!;
      const result = mergeResults(list.map((window) => window.result));
      const cpu = list.reduce((sum, window) => sum + window.cpuMicros, 0);
      return { result, cpuMicros: result.requests === 0 ? 0 : cpu / result.requests };
    };
    const bareJson = merged('bare-json');
    const bareStatic = merged('bare-static');
    const labels: [string, string, { cpuMicros: number } | undefined][] = [
      ['bare-json', 'bare Fastify JSON route', undefined],
      ['requirement', 'requirement check (200 true)', bareJson],
      ['bare-static', 'bare Fastify static route', undefined],
      ['detector', 'detector script (production)', bareStatic],
      ['theme-loader', 'theme loader script', bareStatic],
      ['proof', `access proof (${CLASS_SIZE} stored keys)`, undefined],
      ['redemption', 'access-code redemption', undefined],
      ['download', 'download, session URL (LMS call)', undefined],
      ['download-instructor', 'download, instructor (own key, no LMS call)', undefined],
      ['start', 'whole start (login to code, 7 requests)', undefined],
    ];
    const peak = await service.cpu();
    const logLines = readFileSync(env.logFile, 'utf8').split('\n').filter(Boolean).length;
    return {
      paths: labels.map(([key, label, against]) => {
        const { result, cpuMicros } = merged(key);
        return { key, label, result, cpuMicros, ...(against === undefined ? {} : { cpuRatio: against.cpuMicros / cpuMicros }) };
      }),
      sync,
      storedConfigKeys: CLASS_SIZE,
      peakRssMb: peak.maxRssKb / 1024,
      serviceFlags: serviceNodeFlags(),
      memory: memory.list(),
      ...(startSteps.length > 0 ? { startSteps } : {}),
      logLines,
      idleCpuMicrosPerSecond,
      statementsPerStart,
    };
  } finally {
    await env.close();
  }
}

