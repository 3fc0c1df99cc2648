import { Migration } from '@mikro-orm/migrations';
import { migrations } from '@exb/migrations';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAM_DAY_SCOPES } from '@exb/shared/oauth-scopes.js';
import { buildApp } from '../../src/app.js';
import { openDatabase } from '../../src/db/orm.js';
import { createLogger } from '../../src/logger.js';
import { createTestApp, type TestApp } from '../support/app.js';

function bootstrapOf(html: string): Record<string, unknown> {
  const match = /<script id="exb-bootstrap" type="application\/json">(.*?)<\/script>/s.exec(html);
  if (!match?.[1]) throw new Error('no bootstrap element');
  return JSON.parse(match[1]) as Record<string, unknown>;
}

describe('public and health routes', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { BASE_URL: 'https://tool.example.test', LMS_URL: 'https://lms.example.test' } });
  });
  afterAll(() => t.close());

  it.each(['/health', '/login/health', '/js/health'])('GET %s answers UP', async (path) => {
    const response = await t.app.inject({ method: 'GET', url: path });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.json()).toEqual({ status: 'UP' });
  });

  it('GET /ready answers READY when every migration is applied', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/ready' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'READY' });
  });

  it('GET / renders the service-status shell with strict headers and no testbed data', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    const csp = String(response.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'self' https://lms.example.test");
    expect(csp).not.toContain('unsafe-eval');
    expect(response.headers['referrer-policy']).toBe('no-referrer');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    const bootstrap = bootstrapOf(response.body);
    expect(bootstrap.view).toBe('service-status');
    expect(bootstrap).not.toHaveProperty('testbed');
  });

  it('GET /login is a static page pointing to the LMS', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/login' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.body).toContain('LMS');
    expect(response.body).not.toContain('exb-bootstrap');
  });

  it('GET /setup carries the five setup values in the admin-setup view', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/setup' });
    expect(response.statusCode).toBe(200);
    const bootstrap = bootstrapOf(response.body);
    expect(bootstrap).toMatchObject({
      view: 'admin-setup',
      toolUrl: 'https://tool.example.test/lti/launch',
      healthUrl: 'https://tool.example.test/health',
      ltiConfigUrl: 'https://tool.example.test/lti/config',
      jwksUrl: 'https://tool.example.test/.well-known/jwks.json',
      detectorUrl: 'https://tool.example.test/js/lms-exb-detector.js',
    });
    expect(bootstrap).not.toHaveProperty('detailed');
  });

  it('GET /setup/guide is the same view with detailed: true', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/setup/guide' });
    expect(response.statusCode).toBe(200);
    const bootstrap = bootstrapOf(response.body);
    expect(bootstrap).toMatchObject({ view: 'admin-setup', detailed: true, toolUrl: 'https://tool.example.test/lti/launch' });
    // For the developer keys API call that adds the session scope.
    expect(bootstrap).toMatchObject({ lmsUrl: 'https://lms.example.test' });
    expect(bootstrap.applicationScopes).toContain('url:GET|/api/v1/login/session_token');
    // The exam-day board's read scopes, listed for the key whether or not this service asks for them yet.
    expect(bootstrap).toMatchObject({ examDayScopes: Object.values(EXAM_DAY_SCOPES), examDayScopesRequested: false });
  });

  it('unknown /api routes answer a JSON 404', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/nothing-here' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ success: false, error_code: 'NOT_FOUND', message: 'No such API route.' });
  });

  it('the bootstrap JSON cannot break out of its script element', async () => {
    const { ShellRenderer } = await import('../../src/pages/shell.js');
    const html = new ShellRenderer({ script: '/assets/main.js', styles: [] }, { lmsOrigin: 'https://lms.example.test' }).html({
      view: 'notice',
      message: '</script><script>alert(1)</script>',
    });
    expect(html).not.toContain('</script><script>alert(1)');
    expect(bootstrapOf(html).message).toBe('</script><script>alert(1)</script>');
  });
});

describe('the page shell', () => {
  it('writes each language its own words, and a given title escaped, however many pages it renders', async () => {
    const { ShellRenderer } = await import('../../src/pages/shell.js');
    const shell = new ShellRenderer({ script: '/assets/main.js', styles: ['/assets/a.css'] }, { lmsOrigin: 'https://lms.example.test' });
    const pages = ['en', 'de', 'en', 'de'].map((locale) => shell.html({ view: 'notice' }, undefined, locale as 'en' | 'de'));
    expect(pages[0]).toBe(pages[2]);
    expect(pages[1]).toBe(pages[3]);
    expect(pages[0]).not.toBe(pages[1]);
    for (const [page, lang] of [[pages[0]!, 'en'], [pages[1]!, 'de']] as const) {
      expect(page.startsWith(`<!doctype html><html lang="${lang}">`)).toBe(true);
      expect(page).toMatch(/<title>[^<]+<\/title><link rel="stylesheet" href="\/assets\/a.css"><\/head><body><div id="root"><\/div><noscript>[^<]+<\/noscript>/);
      expect(page.endsWith('<script type="module" src="/assets/main.js"></script></body></html>')).toBe(true);
      expect(bootstrapOf(page).locale).toBe(lang);
    }
    expect(shell.html({ view: 'notice' }, 'Quiz <1> & co', 'de')).toContain('<title>Quiz &lt;1&gt; &amp; co</title>');
  });
});

describe('testbed diagnostics', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { TESTBED_ENABLED: 'true' } });
  });
  afterAll(() => t.close());

  it('GET / includes testbed diagnostics only when the testbed is enabled', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/' });
    const bootstrap = bootstrapOf(response.body);
    expect(bootstrap.testbed).toMatchObject({ lmsUrl: 'http://localhost:3001', databaseMode: 'external' });
    expect(JSON.stringify(bootstrap)).not.toMatch(/PRIVATE KEY|secret/i);
  });
});

describe('readiness with pending migrations', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ migrate: false });
  });
  afterAll(() => t.close());

  it('answers 503 until the checked-in migrations are applied, and again when a new one is checked in', async () => {
    let response = await t.app.inject({ method: 'GET', url: '/ready' });
    expect(response.statusCode).toBe(503);
    expect(response.json()).toMatchObject({ status: 'MIGRATIONS_PENDING', pendingMigrations: migrations.length });

    await t.db.migrate();
    response = await t.app.inject({ method: 'GET', url: '/ready' });
    expect(response.statusCode).toBe(200);

    class Migration29990101000000_future extends Migration {
      override up(): void {
        this.addSql('create table future_table (id int primary key)');
      }
    }
    const newer = await openDatabase({
      databaseUrl: t.databaseUrl,
      dataDir: t.dataDir,
      logger: createLogger('silent'),
      migrations: [...migrations, { name: 'Migration29990101000000_future', class: Migration29990101000000_future }],
    });
    const appExpectingNewer = await buildApp({ config: t.config, logger: createLogger('silent'), db: newer });
    try {
      response = await appExpectingNewer.inject({ method: 'GET', url: '/ready' });
      expect(response.statusCode).toBe(503);
      expect(response.json()).toEqual({ status: 'MIGRATIONS_PENDING', pendingMigrations: 1 });
    } finally {
      await appExpectingNewer.close();
      await newer.close();
    }
  });
});
