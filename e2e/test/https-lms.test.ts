import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { fileURLToPath } from 'node:url';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVELOPMENT_CERTIFICATE_FILE, DEVELOPMENT_CERTIFICATE_KEY_FILE } from '../../server/src/config/dev-secrets.js';
import { openDatabase, type Database } from '../../server/src/db/orm.js';
import { freePort } from '../../server/src/free-port.js';
import { createLogger } from '../../server/src/logger.js';
import { createTestDatabase } from '../../server/test/support/database.js';
import { startDevelopment, type DevelopmentEnvironment } from '../src/dev.js';
import { downloadConfiguration, openConfiguration, SIMULATOR_USER_AGENT, SimulatedExamBrowser } from '../src/exb-simulator/index.js';
import { browserAvailable, launchBrowser, type LaunchedBrowser } from '../src/support/browser.js';
import { localhostTlsCertificate } from '../src/support/tls-certificate.js';
import {
  approveLmsAuthorization,
  callInFrame,
  launchIntoToolFrame,
  PAGE_TIMEOUT_MS,
  waitForView,
  watchServiceProblems,
} from '../src/support/tool-frame.js';

const BUNDLES = ['../../client/dist/.vite/manifest.json', '../../detector/dist/lms-exb-detector.js'].map((bundle) =>
  fileURLToPath(new URL(bundle, import.meta.url)),
);

const COURSE = '101';
const QUIZ_ID = 201;
const CONTENT_ID = `classicquiz_${QUIZ_ID}`;
const EXIT_PASSWORD = 'leave-the-exam-browser';

/**
 * The production shape on one machine: the development LMS on `https://localhost` (a self-signed certificate made
 * here) and the tool on `http://localhost`. Same host, other scheme: Chromium counts them as different sites
 * (schemeful same-site), so the tool frame is a third-party context, its launch a cross-site form post, and its
 * cookies work only as `SameSite=None; Secure; Partitioned`, which Chromium stores on `http://localhost`.
 */
describe.runIf(browserAvailable())('the tool on http://localhost inside an HTTPS LMS (Chromium)', { timeout: 120_000 }, () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let dataDir: string;
  let db: Database;
  let dev: DevelopmentEnvironment;
  let browser: LaunchedBrowser;
  let trustedBefore: string[];
  const contexts: BrowserContext[] = [];
  const problems: string[] = [];

  beforeAll(async () => {
    for (const bundle of BUNDLES) if (!existsSync(bundle)) throw new Error(`${bundle} is missing: run \`npm run build\``);
    const certificate = localhostTlsCertificate();
    // The service verifies the LMS's certificate as in production: this process trusts exactly the one made here.
    trustedBefore = tls.getCACertificates('default');
    tls.setDefaultCACertificates([...trustedBefore, certificate.cert]);

    database = await createTestDatabase();
    dataDir = mkdtempSync(path.join(tmpdir(), 'exb-https-lms-e2e-'));
    db = await openDatabase({ databaseUrl: database.url, dataDir, logger: createLogger('silent'), poolSize: 1 });
    await db.migrate();
    const [port, lmsPort] = [await freePort(), await freePort()];
    dev = await startDevelopment(
      {
        NODE_ENV: 'test',
        LOG_LEVEL: 'silent',
        HOST: '127.0.0.1',
        PORT: String(port),
        LMS_PORT: String(lmsPort),
        DATABASE_URL: database.url,
        DATA_DIR: dataDir,
      },
      { lmsTls: certificate },
    );
    expect(dev.lmsUrl).toBe(`https://localhost:${lmsPort}`);
    expect(dev.serviceUrl).toBe(`http://localhost:${port}`);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
    await dev?.close();
    await db?.close();
    await database?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    if (trustedBefore) tls.setDefaultCACertificates(trustedBefore);
  });

  /** One person's browser; the LMS's self-signed certificate is accepted as a trusted one would be. */
  async function newBrowser(options: { userAgent?: string } = {}) {
    const context = await browser.browser.newContext({ ignoreHTTPSErrors: true, ...options });
    contexts.push(context);
    const page = await context.newPage();
    // The first download of a student without an LMS sign-in is refused on purpose: it asks to connect first.
    watchServiceProblems(page, dev.serviceUrl, problems, (url, status) => status === 403 && url.startsWith(`${dev.serviceUrl}/api/exb/config-grant/`));
    return { context, page };
  }

  it('an instructor launches, authorizes the LMS in the popup and enables the exam browser for a quiz', async () => {
    const { context, page } = await newBrowser();
    const frame = await launchIntoToolFrame(page, dev.launchPageUrl, 'Launch as instructor', dev.serviceUrl);
    expect(page.url().startsWith(`${dev.lmsUrl}/`)).toBe(true);
    await waitForView(frame, 'teacher');

    // The frame's session cookie lives in the HTTPS LMS's partition.
    const sessions = (await context.cookies(dev.serviceUrl)).filter((cookie) => cookie.name === 'exb_session');
    expect(sessions).toHaveLength(1);
    expect(sessions[0]).toMatchObject({ sameSite: 'None', secure: true, httpOnly: true, partitionKey: 'https://localhost' });

    const connect = frame.getByRole('button', { name: 'Authorize the tool in the LMS' });
    await connect.waitFor({ timeout: PAGE_TIMEOUT_MS });
    const [popup] = await Promise.all([page.waitForEvent('popup'), connect.click()]);
    await approveLmsAuthorization(popup, dev.lmsUrl, dev.serviceUrl);
    expect(await waitForView(popup, 'lms-oauth-connected')).toMatchObject({ lmsReturnUrl: `${dev.lmsUrl}/courses/${COURSE}` });
    await popup.close();
    const status = await frame.evaluate(async () => (await fetch('/api/oauth2status', { credentials: 'same-origin' })).json());
    expect(status).toEqual({ authorized: true });

    expect((await callInFrame(frame, 'POST', `/api/quizzes/course/${COURSE}/refresh`)).status).toBe(200);
    expect((await callInFrame(frame, 'PUT', `/api/quizzes/course/${COURSE}/defaults`, { quitPassword: EXIT_PASSWORD })).status).toBe(200);
    const enabled = await callInFrame(frame, 'POST', `/api/quizzes/${COURSE}/${QUIZ_ID}/exb/enable`);
    expect(enabled).toMatchObject({ status: 200, body: { success: true, setting: { exbRequired: true, enabled: true } } });
  });

  it('a student connects the LMS sign-in, downloads the configuration and the exam browser unlocks the quiz', async () => {
    const { page } = await newBrowser();
    const frame = await launchIntoToolFrame(page, dev.launchPageUrl, 'Launch as student 1', dev.serviceUrl);
    await waitForView(frame, 'student');

    await frame.getByRole('button', { name: /^Download configuration for / }).click();
    const connect = frame.getByRole('button', { name: 'Connect your LMS account' });
    await connect.waitFor({ timeout: PAGE_TIMEOUT_MS });
    const [popup] = await Promise.all([page.waitForEvent('popup'), connect.click()]);
    await approveLmsAuthorization(popup, dev.lmsUrl, dev.serviceUrl);
    await waitForView(popup, 'student-session-connected');

    const handoff = await waitForView(frame, 'exb-launch-handoff');
    expect(handoff).toMatchObject({ available: true, lmsReturnUrl: `${dev.lmsUrl}/courses/${COURSE}` });
    const secrets = path.join(dataDir, 'secrets');
    const opened = openConfiguration((await downloadConfiguration(handoff.exbLaunchUrl as string)).bytes, {
      certificatePem: readFileSync(path.join(secrets, DEVELOPMENT_CERTIFICATE_FILE), 'utf8'),
      privateKeyPem: readFileSync(path.join(secrets, DEVELOPMENT_CERTIFICATE_KEY_FILE), 'utf8'),
    });
    expect(opened.startUrl).toMatch(new RegExp(`^${dev.serviceUrl}/exb/session-start/${COURSE}/${CONTENT_ID}\\?key=`));

    // The exam browser on the HTTPS quiz page: the detector, loaded from the http tool, proves the configuration and
    // redeems the access code across the two origins; the LMS then shows the questions.
    const examBrowser = SimulatedExamBrowser.fromConfiguration(opened);
    const exam = await newBrowser({ userAgent: SIMULATOR_USER_AGENT });
    await exam.context.addInitScript(examBrowser.initScript());
    await exam.page.goto(opened.startUrl!);
    const redeemed = exam.page.waitForResponse((response) => response.url() === `${dev.serviceUrl}/api/exb/access-code/${COURSE}/${CONTENT_ID}`);
    await exam.page.locator('#take_quiz_link').click();
    expect((await redeemed).status()).toBe(200);
    await exam.page.locator('#submit_quiz_form').waitFor({ timeout: PAGE_TIMEOUT_MS });
  });

  it('shows the pages without script errors, refused requests or content-security-policy violations', () => {
    expect(problems).toEqual([]);
  });
});
