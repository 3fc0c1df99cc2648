import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/app-config.js';

const dirs: string[] = [];
function dataDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'exb-config-test-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('configuration was accepted');
}

const productionEnv = {
  NODE_ENV: 'production',
  BASE_URL: 'https://tool.school.example',
  LMS_URL: 'https://lms.school.example',
  APP_SECRET: 'x'.repeat(48),
  TOKEN_ENCRYPTION_KEYS: `k1:${Buffer.alloc(32, 1).toString('base64')}`,
  LTI_TOOL_PRIVATE_KEY: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----',
  LTI_ISSUER: 'https://canvas.instructure.com',
  LTI_CLIENT_ID: '10000000000042',
  LTI_DEPLOYMENT_ID: '7:abc',
  LMS_OAUTH_CLIENT_ID: '10000000000043',
  LMS_OAUTH_CLIENT_SECRET: 'oauth-secret',
  EXB_CONFIG_CERTIFICATE: '/etc/exb/cert.pem',
};

describe('configuration validation', () => {
  it('names every malformed value at once', () => {
    const problems = problemsOf({
      DATA_DIR: dataDir(),
      PORT: 'eighty',
      BASE_URL: 'not a url',
      TESTBED_ENABLED: 'yes',
      ADMIN_PAGE_SIZE: '0',
    });
    expect(problems.some((p) => p.startsWith('PORT:'))).toBe(true);
    expect(problems.some((p) => p.startsWith('BASE_URL:'))).toBe(true);
    expect(problems.some((p) => p.startsWith('TESTBED_ENABLED:'))).toBe(true);
    expect(problems.some((p) => p.startsWith('ADMIN_PAGE_SIZE:'))).toBe(true);
  });

  it('takes a database timeout of 5 seconds unless one from 100 ms to 10 minutes is given', () => {
    expect(loadConfig(productionEnv).databaseTimeoutMs).toBe(5_000);
    expect(loadConfig({ ...productionEnv, DATABASE_TIMEOUT_MS: '2500' }).databaseTimeoutMs).toBe(2_500);
    for (const value of ['0', '99', '600001', 'soon']) {
      expect(problemsOf({ DATA_DIR: dataDir(), DATABASE_TIMEOUT_MS: value }).some((p) => p.startsWith('DATABASE_TIMEOUT_MS:'))).toBe(true);
    }
  });

  it('rejects a BASE_URL with a path and a malformed token keyring', () => {
    expect(problemsOf({ DATA_DIR: dataDir(), BASE_URL: 'https://tool.example/app' })[0]).toMatch(/^BASE_URL: must be an origin/);
    expect(problemsOf({ DATA_DIR: dataDir(), TOKEN_ENCRYPTION_KEYS: 'k1:c2hvcnQ=' })[0]).toMatch(/^TOKEN_ENCRYPTION_KEYS: key "k1" must be 32 bytes/);
    expect(problemsOf({ DATA_DIR: dataDir(), TOKEN_ENCRYPTION_KEYS: `k1:${Buffer.alloc(32).toString('base64')},k1:${Buffer.alloc(32).toString('base64')}` })[0]).toMatch(/unique/);
  });

  it('accepts a complete production configuration', () => {
    const config = loadConfig(productionEnv);
    expect(config.production).toBe(true);
    expect(config.lti.deploymentIds).toEqual(['7:abc']);
    expect(config.oauth.redirectUri).toBe('https://tool.school.example/api/oauth2callback');
    expect(config.lti.authUrl).toBe('https://lms.school.example/api/lti/authorize_redirect');
    expect(config.lti.jwksUrl).toBe('https://lms.school.example/api/lti/security/jwks');
  });

  it('refuses production without secrets', () => {
    const { APP_SECRET, TOKEN_ENCRYPTION_KEYS, LTI_TOOL_PRIVATE_KEY, LMS_OAUTH_CLIENT_SECRET, ...rest } = productionEnv;
    const problems = problemsOf(rest);
    expect(problems).toEqual(
      expect.arrayContaining([
        'APP_SECRET: is required in production',
        'TOKEN_ENCRYPTION_KEYS: is required in production',
        'LTI_TOOL_PRIVATE_KEY: is required in production',
        'LMS_OAUTH_CLIENT_SECRET: is required in production',
      ]),
    );
  });

  it('refuses plain-HTTP origins in production', () => {
    const problems = problemsOf({ ...productionEnv, BASE_URL: 'http://tool.school.example', LMS_URL: 'http://lms.school.example' });
    expect(problems).toEqual(
      expect.arrayContaining(['BASE_URL: must be an https:// origin in production', 'LMS_URL: must be an https:// origin in production']),
    );
  });

  it('requires the deployment allowlist in production while checking is on, and not when it is off', () => {
    const { LTI_DEPLOYMENT_ID, ...rest } = productionEnv;
    expect(problemsOf(rest)).toEqual([expect.stringMatching(/^LTI_DEPLOYMENT_ID: is required/)]);
    expect(loadConfig({ ...rest, LTI_DEPLOYMENT_ID_CHECKING_ENABLED: 'false' }).lti.deploymentIdCheckingEnabled).toBe(false);
  });

  it('refuses the testbed in production, so the simulated exam browser is never offered there', () => {
    expect(problemsOf({ ...productionEnv, TESTBED_ENABLED: 'true' })).toEqual(['TESTBED_ENABLED: must be off in production']);
    // Even the development launcher's in-process option offers nothing in production.
    const production = loadConfig(productionEnv, { developmentLms: { examBrowserUrl: 'http://localhost:3001/testbed/exam-browser' } });
    expect(production.testbedEnabled).toBe(false);
    expect(production.testbedExamBrowserUrl).toBeUndefined();
  });

  it('listens on loopback in development and on every interface in production, unless HOST says otherwise', () => {
    expect(loadConfig({ DATA_DIR: dataDir() }).host).toBe('127.0.0.1');
    expect(loadConfig({ DATA_DIR: dataDir(), HOST: '0.0.0.0' }).host).toBe('0.0.0.0');
    expect(loadConfig(productionEnv).host).toBe('0.0.0.0');
    expect(loadConfig({ ...productionEnv, HOST: '10.0.0.5' }).host).toBe('10.0.0.5');
  });

  it('offers the simulated exam browser only with the testbed on and the development LMS named by the launcher', () => {
    const developmentLms = { examBrowserUrl: 'http://localhost:3001/testbed/exam-browser' };
    const base = { DATA_DIR: dataDir(), LMS_URL: 'http://localhost:3001' };
    expect(loadConfig({ ...base, TESTBED_ENABLED: 'true' }, { developmentLms }).testbedExamBrowserUrl).toBe(developmentLms.examBrowserUrl);
    expect(loadConfig({ ...base, TESTBED_ENABLED: 'true' }).testbedExamBrowserUrl).toBeUndefined();
    expect(loadConfig(base, { developmentLms }).testbedExamBrowserUrl).toBeUndefined();
  });

  it('parses flags and lists', () => {
    const config = loadConfig({
      DATA_DIR: dataDir(),
      LTI_DEPLOYMENT_ID: ' 1:a , 2:b ,',
      EXB_CONFIG_ENCRYPTION_ENABLED: 'false',
    });
    expect(config.lti.deploymentIds).toEqual(['1:a', '2:b']);
    expect(config.exb.configEncryptionEnabled).toBe(false);
    expect(config.exb.certificatePath).toBeUndefined();
    expect(config.trustProxy).toBe(false);
  });

  it.each([
    ['false', false],
    ['0', false],
    ['1', 1],
    [' 2 ', 2],
    ['10.0.0.5', ['10.0.0.5']],
    ['10.0.0.5, 10.1.0.0/16,fd00::/8', ['10.0.0.5', '10.1.0.0/16', 'fd00::/8']],
    ['loopback,uniquelocal', ['loopback', 'uniquelocal']],
  ])('reads TRUST_PROXY=%j as a hop count or proxy addresses', (value, expected) => {
    expect(loadConfig({ DATA_DIR: dataDir(), TRUST_PROXY: value }).trustProxy).toEqual(expected);
  });

  it.each(['true', 'TRUE', 'yes', '0.0.0.0/0', '::/0', '10.0.0.0/33', 'proxy.internal', '17', '10.0.0.5,'.repeat(2) + 'x'])(
    'refuses TRUST_PROXY=%j, saying to give a hop count or addresses',
    (value) => {
      expect(problemsOf({ DATA_DIR: dataDir(), TRUST_PROXY: value })).toEqual([
        expect.stringMatching(/^TRUST_PROXY: .*give the number of proxies in front of the service \(e\.g\. 1\) or their addresses/),
      ]);
    },
  );
});

describe('generated development secrets', () => {
  it('are created once in DATA_DIR and reused on the next start', () => {
    const dir = dataDir();
    const first = loadConfig({ DATA_DIR: dir });
    const second = loadConfig({ DATA_DIR: dir });
    expect(second.secrets.appSecret.equals(first.secrets.appSecret)).toBe(true);
    expect(second.secrets.tokenEncryptionKeys).toEqual(first.secrets.tokenEncryptionKeys);
    expect(second.lti.toolPrivateKeys).toEqual(first.lti.toolPrivateKeys);
    expect(second.exb.certificatePath).toBe(first.exb.certificatePath);
    expect(readFileSync(first.exb.certificatePath!, 'utf8')).toContain('BEGIN CERTIFICATE');
    expect(statSync(path.join(dir, 'secrets', 'development-secrets.json')).mode & 0o077).toBe(0);

    const elsewhere = loadConfig({ DATA_DIR: dataDir() });
    expect(elsewhere.secrets.appSecret.equals(first.secrets.appSecret)).toBe(false);
  });

  it('prefers given values over generated ones', () => {
    const config = loadConfig({ DATA_DIR: dataDir(), APP_SECRET: 's'.repeat(40) });
    expect(config.secrets.appSecret.toString()).toBe('s'.repeat(40));
  });
});
