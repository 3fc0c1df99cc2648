import path from 'node:path';
import { z } from 'zod';
import { OAUTH_CALLBACK_ROUTE } from '@exb/shared/service-paths.js';
import { loadOrCreateDevelopmentSecrets } from './dev-secrets.js';
import { parsePemBlocks } from './pem.js';
import { parseTrustProxy } from './trust-proxy.js';
import type { TokenEncryptionKey } from '../security/token-keyring.js';

/** The development LMS started by `npm run dev` (e2e/src/dev.ts) listens here unless LMS_URL is given. */
export const DEVELOPMENT_LMS_URL = 'http://localhost:3001';
export const DEVELOPMENT_LTI_ISSUER = 'https://canvas.instructure.com';
export const DEVELOPMENT_LTI_CLIENT_ID = '10000000000001';
export const DEVELOPMENT_LTI_DEPLOYMENT_ID = '1:8865aa05b4b79b64a91a86042e43af5ea8ae79eb';

const booleanFlag = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0'], { error: 'must be "true" or "false"' })
    .optional()
    .transform((value) => (value === undefined ? fallback : value === 'true' || value === '1'));

const origin = z.url({ protocol: /^https?$/, error: 'must be an absolute http(s) URL' }).transform((value, ctx) => {
  const url = new URL(value);
  if (url.pathname !== '/' || url.search || url.hash || url.username || url.password) {
    ctx.addIssue({ code: 'custom', message: 'must be an origin without path, query or credentials' });
    return z.NEVER;
  }
  return url.origin;
});

const absoluteUrl = z.url({ protocol: /^https?$/, error: 'must be an absolute http(s) URL' });

const trustProxy = z
  .string()
  .optional()
  .transform((value, ctx) => {
    try {
      return parseTrustProxy(value);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: (error as Error).message });
      return z.NEVER;
    }
  });

const positiveInt = (fallback: number, max: number) => z.coerce.number().int().min(1).max(max).default(fallback);

const nonEmpty = z.string().trim().min(1);

/**
 * The address the service listens on without `HOST`. Development turns the testbed's diagnostics on and generates its
 * own secrets, so it answers only this machine unless `HOST` opens it up; production runs behind a proxy or in a
 * container, where every interface is the usual and the proxy decides who reaches it.
 */
export function listenHost(production: boolean): string {
  return production ? '0.0.0.0' : '127.0.0.1';
}

/** Every environment variable of the configuration contract (DESIGN.md §4). Empty strings count as unset. */
export const environmentSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  // Default by environment (see `listenHost`): loopback in development, every interface in production.
  HOST: nonEmpty.optional(),
  BASE_URL: origin.default('http://localhost:3000'),
  LMS_URL: origin.optional(),
  LMS_PLATFORM: nonEmpty.default('canvas.instructure.com'),
  LTI_ISSUER: nonEmpty.optional(),
  LTI_CLIENT_ID: nonEmpty.optional(),
  LTI_DEPLOYMENT_ID: nonEmpty.optional(),
  LTI_DEPLOYMENT_ID_CHECKING_ENABLED: booleanFlag(true),
  LTI_AUTH_URL: absoluteUrl.optional(),
  LTI_JWKS_URL: absoluteUrl.optional(),
  LTI_COURSE_NAVIGATION_VISIBLE_TO_STUDENTS: booleanFlag(true),
  LMS_OAUTH_CLIENT_ID: nonEmpty.optional(),
  LMS_OAUTH_CLIENT_SECRET: nonEmpty.optional(),
  /**
   * Also ask for the exam-day board's read scopes (`EXAM_DAY_SCOPES`). Off by default: the LMS refuses every
   * authorization that asks for a scope its developer key lacks, so switch it on only once the key has them.
   */
  LMS_OAUTH_EXAM_DAY_SCOPES: booleanFlag(false),
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/, error: 'must be a postgres:// URL' }).optional(),
  /** The longest the service waits for the database: for a connection, and for each statement. Below clients' patience. */
  DATABASE_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(5_000),
  DATA_DIR: nonEmpty.default('./data'),
  APP_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  TOKEN_ENCRYPTION_KEYS: nonEmpty.optional(),
  LTI_TOOL_PRIVATE_KEY: nonEmpty.optional(),
  EXB_CONFIG_ENCRYPTION_ENABLED: booleanFlag(true),
  EXB_CONFIG_CERTIFICATE: nonEmpty.optional(),
  EXB_MANAGED_QUIT_PASSWORD: z.string().min(1).optional(),
  EXB_DEBUG_ENABLED: booleanFlag(false),
  EXB_DETECTOR_DIAGNOSTICS_ENABLED: booleanFlag(false),
  TESTBED_ENABLED: booleanFlag(false),
  VIDEO_EMBED_HOST: origin.default('https://www.youtube-nocookie.com'),
  ADMIN_RECONCILE_BATCH_SIZE: positiveInt(12, 100),
  ADMIN_PAGE_SIZE: positiveInt(25, 100),
  AUDIT_RETENTION_DAYS: positiveInt(400, 3650),
  /** Days an exam-day record of a student's way in is kept after its last step. */
  EXAM_DAY_RETENTION_DAYS: positiveInt(30, 3650),
  /** Seconds between the background access-code verifier's batches; `0` switches it off. */
  ACCESS_CODE_VERIFY_INTERVAL_SECONDS: z.coerce.number().int().min(0).max(86_400).default(300),
  ACCESS_CODE_VERIFY_BATCH_SIZE: positiveInt(20, 500),
  ACCESS_CODE_VERIFY_CALLS_PER_MINUTE: positiveInt(30, 600),
  ACCESS_CODE_VERIFY_RECHECK_MINUTES: positiveInt(360, 10_080),
  /**
   * Seconds between pre-exam sweeps (an hour and ten minutes before each enforced assessment's start); `0` switches
   * them off. A minute keeps the ten-minute check within a minute of its time.
   */
  PRE_EXAM_SWEEP_INTERVAL_SECONDS: z.coerce.number().int().min(0).max(600).default(60),
  /** `false`, a hop count or a list of proxy addresses and CIDR ranges; never `true` (see `config/trust-proxy.ts`). */
  TRUST_PROXY: trustProxy,
  LTI_LOGIN_BUDGET_PER_IP: positiveInt(1200, 1_000_000),
  LTI_LAUNCH_BUDGET_PER_IP: positiveInt(1200, 1_000_000),
  LTI_PROCESS_BUDGET_PER_IP: positiveInt(600, 1_000_000),
  LTI_LAUNCH_BUDGET_PER_STATE: positiveInt(5, 1000),
});

export type Environment = z.infer<typeof environmentSchema>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** `kid:base64key,...`; each key must decode to exactly 32 bytes (AES-256). The first is the active key. */
export function parseTokenEncryptionKeys(value: string): TokenEncryptionKey[] {
  const keys = value.split(',').map((entry, index) => {
    const separator = entry.indexOf(':');
    const kid = entry.slice(0, separator).trim();
    const material = entry.slice(separator + 1).trim();
    if (separator < 1 || !/^[A-Za-z0-9_.-]{1,64}$/.test(kid)) {
      throw new Error(`entry ${index + 1} must look like "kid:base64key" with a short alphanumeric kid`);
    }
    const key = Buffer.from(material, 'base64');
    if (key.length !== 32 || key.toString('base64').replace(/=+$/, '') !== material.replace(/=+$/, '')) {
      throw new Error(`key "${kid}" must be 32 bytes in standard base64`);
    }
    return { kid, key };
  });
  const kids = new Set(keys.map((entry) => entry.kid));
  if (kids.size !== keys.length) throw new Error('key ids must be unique');
  return keys;
}

function isHttps(url: string): boolean {
  return new URL(url).protocol === 'https:';
}

const splitList = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);

export interface ConfigOptions {
  /** Resolves a relative `DATA_DIR` and `EXB_CONFIG_CERTIFICATE`; the process's working directory by default. */
  cwd?: string;
  /**
   * Given only by the development launcher (`e2e/src/dev.ts`), in-process, never through the environment: the LMS is
   * its development LMS, whose simulated exam browser opens configurations at `examBrowserUrl`.
   */
  developmentLms?: { examBrowserUrl: string };
}

/**
 * Validates the environment and resolves it into the configuration the service runs with.
 * Throws {@link ConfigError} listing every problem at once, so an operator fixes them in one pass.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, options: ConfigOptions = {}) {
  const cleaned = Object.fromEntries(
    Object.keys(environmentSchema.shape).flatMap((name) => {
      const value = env[name];
      return value === undefined || value.trim() === '' ? [] : [[name, value]];
    }),
  );
  const parsed = environmentSchema.safeParse(cleaned);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join('.') || 'environment'}: ${issue.message}`));
  }
  const e = parsed.data;
  const production = e.NODE_ENV === 'production';
  const problems: string[] = [];
  const dataDir = path.resolve(options.cwd ?? process.cwd(), e.DATA_DIR);

  if (production) {
    if (!isHttps(e.BASE_URL)) problems.push('BASE_URL: must be an https:// origin in production');
    if (!e.LMS_URL) problems.push('LMS_URL: is required in production');
    else if (!isHttps(e.LMS_URL)) problems.push('LMS_URL: must be an https:// origin in production');
    const required = [
      'APP_SECRET',
      'TOKEN_ENCRYPTION_KEYS',
      'LTI_TOOL_PRIVATE_KEY',
      'LTI_ISSUER',
      'LTI_CLIENT_ID',
      'LMS_OAUTH_CLIENT_ID',
      'LMS_OAUTH_CLIENT_SECRET',
    ] as const;
    for (const name of required) if (!e[name]) problems.push(`${name}: is required in production`);
    if (e.LTI_DEPLOYMENT_ID_CHECKING_ENABLED && !e.LTI_DEPLOYMENT_ID) {
      problems.push('LTI_DEPLOYMENT_ID: is required in production while LTI_DEPLOYMENT_ID_CHECKING_ENABLED is true');
    }
    if (e.EXB_CONFIG_ENCRYPTION_ENABLED && !e.EXB_CONFIG_CERTIFICATE) {
      problems.push('EXB_CONFIG_CERTIFICATE: is required in production while EXB_CONFIG_ENCRYPTION_ENABLED is true');
    }
    for (const name of ['LTI_AUTH_URL', 'LTI_JWKS_URL'] as const) {
      const value = e[name];
      if (value && !isHttps(value)) problems.push(`${name}: must be an https:// URL in production`);
    }
    // The testbed shows configuration details and links to development stand-ins; a school's students never see it.
    if (e.TESTBED_ENABLED) problems.push('TESTBED_ENABLED: must be off in production');
  }

  let tokenEncryptionKeys: TokenEncryptionKey[] | undefined;
  if (e.TOKEN_ENCRYPTION_KEYS) {
    try {
      tokenEncryptionKeys = parseTokenEncryptionKeys(e.TOKEN_ENCRYPTION_KEYS);
    } catch (error) {
      problems.push(`TOKEN_ENCRYPTION_KEYS: ${(error as Error).message}`);
    }
  }

  let toolPrivateKeys: string[] | undefined;
  if (e.LTI_TOOL_PRIVATE_KEY) {
    toolPrivateKeys = parsePemBlocks(e.LTI_TOOL_PRIVATE_KEY.replace(/\\n/g, '\n'), 'PRIVATE KEY');
    if (toolPrivateKeys.length === 0) {
      problems.push('LTI_TOOL_PRIVATE_KEY: must contain one or more PEM "PRIVATE KEY" blocks (PKCS#8 RSA)');
    }
  }

  if (problems.length > 0) throw new ConfigError(problems);

  // Development fills in what production must be given, once, so restarts keep sessions, grants and keys valid.
  const generated = production
    ? undefined
    : loadOrCreateDevelopmentSecrets(dataDir, {
        needCertificate: e.EXB_CONFIG_ENCRYPTION_ENABLED && !e.EXB_CONFIG_CERTIFICATE,
      });

  const lmsUrl = e.LMS_URL ?? DEVELOPMENT_LMS_URL;
  const usesDevelopmentLms = !e.LMS_URL || options.developmentLms !== undefined;
  const deploymentIds = splitList(e.LTI_DEPLOYMENT_ID ?? (usesDevelopmentLms ? DEVELOPMENT_LTI_DEPLOYMENT_ID : undefined));

  return {
    env: e.NODE_ENV,
    production,
    logLevel: e.LOG_LEVEL,
    port: e.PORT,
    host: e.HOST ?? listenHost(production),
    baseUrl: e.BASE_URL,
    lmsUrl,
    usesDevelopmentLms,
    lmsPlatform: e.LMS_PLATFORM,
    dataDir,
    databaseUrl: e.DATABASE_URL,
    databaseTimeoutMs: e.DATABASE_TIMEOUT_MS,
    trustProxy: e.TRUST_PROXY,
    testbedEnabled: e.TESTBED_ENABLED,
    /** The development LMS's simulated exam browser, offered beside the real one: testbed and development LMS only. */
    testbedExamBrowserUrl: e.TESTBED_ENABLED ? options.developmentLms?.examBrowserUrl : undefined,
    lti: {
      issuer: e.LTI_ISSUER ?? DEVELOPMENT_LTI_ISSUER,
      clientId: e.LTI_CLIENT_ID ?? DEVELOPMENT_LTI_CLIENT_ID,
      deploymentIds,
      deploymentIdCheckingEnabled: e.LTI_DEPLOYMENT_ID_CHECKING_ENABLED,
      authUrl: e.LTI_AUTH_URL ?? `${lmsUrl}/api/lti/authorize_redirect`,
      jwksUrl: e.LTI_JWKS_URL ?? `${lmsUrl}/api/lti/security/jwks`,
      courseNavigationVisibleToStudents: e.LTI_COURSE_NAVIGATION_VISIBLE_TO_STUDENTS,
      toolPrivateKeys: toolPrivateKeys ?? generated!.toolPrivateKeys,
      /** Admission budgets: per client address per minute (login and launch apart), and attempts per login state. */
      budgets: {
        loginPerIp: e.LTI_LOGIN_BUDGET_PER_IP,
        launchPerIp: e.LTI_LAUNCH_BUDGET_PER_IP,
        processPerIp: e.LTI_PROCESS_BUDGET_PER_IP,
        launchPerState: e.LTI_LAUNCH_BUDGET_PER_STATE,
      },
    },
    oauth: {
      clientId: e.LMS_OAUTH_CLIENT_ID,
      clientSecret: e.LMS_OAUTH_CLIENT_SECRET,
      redirectUri: `${e.BASE_URL}${OAUTH_CALLBACK_ROUTE.path}`,
      examDayScopes: e.LMS_OAUTH_EXAM_DAY_SCOPES,
    },
    secrets: {
      appSecret: Buffer.from(e.APP_SECRET ?? generated!.appSecret, 'utf8'),
      tokenEncryptionKeys: tokenEncryptionKeys ?? generated!.tokenEncryptionKeys,
    },
    exb: {
      configEncryptionEnabled: e.EXB_CONFIG_ENCRYPTION_ENABLED,
      certificatePath: e.EXB_CONFIG_ENCRYPTION_ENABLED
        ? (e.EXB_CONFIG_CERTIFICATE ? path.resolve(options.cwd ?? process.cwd(), e.EXB_CONFIG_CERTIFICATE) : generated?.certificatePath)
        : undefined,
      managedQuitPassword: e.EXB_MANAGED_QUIT_PASSWORD,
      debugEnabled: e.EXB_DEBUG_ENABLED,
      detectorDiagnosticsEnabled: e.EXB_DETECTOR_DIAGNOSTICS_ENABLED,
      videoEmbedHost: e.VIDEO_EMBED_HOST,
    },
    admin: {
      reconcileBatchSize: e.ADMIN_RECONCILE_BATCH_SIZE,
      pageSize: e.ADMIN_PAGE_SIZE,
    },
    audit: {
      retentionDays: e.AUDIT_RETENTION_DAYS,
    },
    examDay: {
      retentionDays: e.EXAM_DAY_RETENTION_DAYS,
    },
    accessCodeVerifier: {
      intervalSeconds: e.ACCESS_CODE_VERIFY_INTERVAL_SECONDS,
      batchSize: e.ACCESS_CODE_VERIFY_BATCH_SIZE,
      callsPerMinute: e.ACCESS_CODE_VERIFY_CALLS_PER_MINUTE,
      recheckMinutes: e.ACCESS_CODE_VERIFY_RECHECK_MINUTES,
      preExamSweepIntervalSeconds: e.PRE_EXAM_SWEEP_INTERVAL_SECONDS,
    },
  };
}

export type AppConfig = ReturnType<typeof loadConfig>;
