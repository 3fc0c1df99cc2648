import { execFileSync } from 'node:child_process';
import { createPrivateKey, randomBytes, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { APPLICATION_SCOPES } from '@exb/shared/oauth-scopes.js';
import { SERVICE_ROUTES } from '@exb/shared/service-paths.js';
import { generateSelfSignedCertificate, loadCertificate } from '@exb/server/exb/certificate.js';
import type { DecryptionIdentity } from '@exb/server/exb/container.js';
import { freePort } from '@exb/server/free-port.js';
import { createMockLms, type MockLms, type RunningLmsServer } from '../lms/index.js';
import { assertLoopback } from './load.js';
import { benchDatabase } from './bench-database.js';
import { ServerProcess } from './child-server.js';
import { HeadClient } from './head-client.js';
import type { ServerSeed } from './server-process.js';
import { request } from './student-http.js';
import {
  BASE_URL,
  COURSE,
  COURSE_CONTEXT_ID,
  DEPLOYMENT_ID,
  DOWNLOAD_QUIZ,
  HUGE_BUDGET,
  INSTRUCTOR,
  LTI_ISSUER,
  QUIZ,
  STUDENT,
} from './student-fixture.js';

/**
 * What the student benchmark runs against: the service in production mode and a bare Fastify server, each in a child
 * process of its own, the development LMS over TLS in this process, and a database made for the run.
 */
export interface Environment {
  bare: ServerProcess;
  service: ServerProcess;
  /** The exam browser's `HEAD`s of downloads, on kept-alive connections as a proxy sends them (`head-client.ts`). */
  heads: HeadClient;
  lms: MockLms;
  lmsServer: RunningLmsServer;
  lmsUrl: string;
  identity: { certificatePem: string; privateKeyPem: string };
  /** The same identity loaded once, as an exam browser holds it: the generator opens every downloaded file with it. */
  decryption: { identities: DecryptionIdentity[] };
  logFile: string;
  close(): Promise<void>;
}

export async function startEnvironment(profileDir: string | undefined): Promise<Environment> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'exb-bench-student-'));
  const cleanups: (() => Promise<unknown> | unknown)[] = [() => rmSync(dataDir, { recursive: true, force: true })];
  const close = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  };
  try {
    const database = await benchDatabase(dataDir);
    cleanups.push(() => database.drop());

    // Production talks HTTPS to the LMS: the development LMS gets a certificate for 127.0.0.1 the service trusts.
    const lmsTlsKey = path.join(dataDir, 'lms-tls-key.pem');
    const lmsTlsCert = path.join(dataDir, 'lms-tls-cert.pem');
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=127.0.0.1',
      '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', lmsTlsKey, '-out', lmsTlsCert,
    ], { stdio: 'ignore' });
    const lmsPort = await freePort();
    const lmsUrl = `https://127.0.0.1:${lmsPort}`;
    const lms = createMockLms({
      baseUrl: lmsUrl,
      // The bench's clients speak HTTP without a browser: the cookie path, seven requests per start.
      platformStorage: false,
      issuer: LTI_ISSUER,
      tool: {
        baseUrl: BASE_URL,
        clientId: '10000000000001',
        deploymentId: DEPLOYMENT_ID,
        oauthClientId: '170000000000042',
        oauthClientSecret: 'bench-oauth-client-secret',
      },
    });
    const lmsServer = await lms.startHttpServer({
      port: lmsPort,
      tls: { cert: readFileSync(lmsTlsCert, 'utf8'), key: readFileSync(lmsTlsKey, 'utf8') },
    });
    cleanups.push(() => lmsServer.close());

    // Production is given every secret; these are made for the run.
    const certificate = generateSelfSignedCertificate({ commonName: 'exam-enforcement bench', days: 2 });
    const certificateFile = path.join(dataDir, 'exb-certificate.pem');
    writeFileSync(certificateFile, certificate.certificatePem);
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const servicePort = await freePort();
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
      BASE_URL,
      PORT: String(servicePort),
      HOST: '127.0.0.1',
      TRUST_PROXY: 'loopback',
      LMS_URL: lmsUrl,
      LTI_ISSUER,
      LTI_CLIENT_ID: '10000000000001',
      LTI_DEPLOYMENT_ID: DEPLOYMENT_ID,
      LMS_OAUTH_CLIENT_ID: '170000000000042',
      LMS_OAUTH_CLIENT_SECRET: 'bench-oauth-client-secret',
      APP_SECRET: randomBytes(48).toString('base64url'),
      TOKEN_ENCRYPTION_KEYS: `bench1:${randomBytes(32).toString('base64')}`,
      LTI_TOOL_PRIVATE_KEY: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      EXB_CONFIG_CERTIFICATE: certificateFile,
      DATA_DIR: dataDir,
      NODE_EXTRA_CA_CERTS: lmsTlsCert,
      ...(process.env.BENCH_HEAP_SNAPSHOT_DIR ? { BENCH_HEAP_SNAPSHOT_DIR: process.env.BENCH_HEAP_SNAPSHOT_DIR } : {}),
      ...(profileDir === undefined ? {} : { BENCH_PROFILE_DIR: path.resolve(profileDir) }),
      ...(process.env.MALLOC_ARENA_MAX ? { MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX } : {}),
      ...(database.url === undefined ? {} : { DATABASE_URL: database.url }),
    };
    const issued = lms.oauth.issueToken({ user: Number(STUDENT.lmsUserId), scopes: APPLICATION_SCOPES, expiresIn: null });
    const instructor = lms.oauth.issueToken({ user: Number(INSTRUCTOR.lmsUserId), scopes: APPLICATION_SCOPES, expiresIn: null });
    const logFile = path.join(dataDir, 'service.log');
    const seed: ServerSeed = {
      courseId: COURSE,
      contentIds: [QUIZ, DOWNLOAD_QUIZ],
      courseContextId: COURSE_CONTEXT_ID,
      student: {
        ...STUDENT,
        accessToken: issued.accessToken,
        refreshToken: issued.refreshToken,
        name: issued.response.user.name,
      },
      instructor: {
        ...INSTRUCTOR,
        accessToken: instructor.accessToken,
        refreshToken: instructor.refreshToken,
        name: instructor.response.user.name,
      },
      staticBytes: 0,
      logFile,
      budget: HUGE_BUDGET,
    };
    const service = await ServerProcess.start('service', env, seed);
    cleanups.push(() => service.stop());
    assertLoopback(new URL(service.origin));
    const heads = new HeadClient(new URL(service.origin));
    cleanups.push(() => heads.close());

    const probe = await request(new http.Agent(), service.origin, 'GET', SERVICE_ROUTES.detectorScript.path);
    if (probe.status !== 200) throw new Error(`the detector script answered ${probe.status}; run \`npm run build\` first`);
    const bare = await ServerProcess.start('bare', { PATH: process.env.PATH }, { ...seed, staticBytes: probe.body.length, logFile: undefined });
    cleanups.push(() => bare.stop());

    return {
      bare,
      service,
      heads,
      lms,
      lmsServer,
      lmsUrl,
      identity: { certificatePem: certificate.certificatePem, privateKeyPem: certificate.privateKeyPem },
      decryption: {
        identities: [{ certificate: loadCertificate(certificate.certificatePem), privateKey: createPrivateKey(certificate.privateKeyPem) }],
      },
      logFile,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
