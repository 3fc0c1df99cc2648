import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPLICATION_SCOPES } from '@exb/shared/oauth-scopes.js';
import { developmentIdentity } from '../../server/test/exb-public/helpers.js';
import { createLogger } from '../../server/src/logger.js';
import { createOAuthServices } from '../../server/src/oauth/services.js';
import { ActionTokens } from '../../server/src/security/action-token.js';
import { deriveKey } from '../../server/src/security/derived-keys.js';
import { OneTimeStore } from '../../server/src/security/one-time-store.js';
import { proveSeedContexts } from '../../server/test/support/oauth-testbed.js';
import { ISSUER, sessionFor, student, subjectFor } from '../../server/test/support/sessions.js';
import { configKeyHashFor, downloadConfiguration, openConfiguration } from '../src/exb-simulator/index.js';
import { seriousViolations } from '../src/support/axe.js';
import { browserAvailable } from '../src/support/browser.js';
import { approveLmsAuthorization, launchIntoToolFrame, PAGE_TIMEOUT_MS } from '../src/support/tool-frame.js';
import { TeacherSession } from './teacher-session.js';

/**
 * Exam day as the teacher watches it: the Activity panel of an enforced quiz counts a student's download and the
 * released access code while the page stays open, beside the recent changes with who made them. Then the
 * administrator reads the account's audit trail, filters it and finds the CSV download.
 */
const COURSE = '101';
const CONTENT_ID = 'classicquiz_201';

describe.runIf(browserAvailable())('Activity panel and audit trail in Chromium', () => {
  let s: TeacherSession;

  beforeAll(async () => {
    s = await TeacherSession.start({ screenshotsVariable: 'E2E_ACTIVITY_SCREENSHOTS' });
    await s.connect();
  }, 120_000);
  afterAll(() => s?.close());

  /** A same-origin request from the tool frame, with the frame's session, as the tool's own pages send it. */
  function callInFrame(method: 'POST' | 'PUT', url: string, body: unknown = {}) {
    return s.tool.evaluate(
      async ({ method, url, body }) => {
        const response = await fetch(url, { method, credentials: 'same-origin', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
        return response.status;
      },
      { method, url, body },
    );
  }

  /** Student 3 of the course: LMS authorization stored, then grant → download → proof → release over real HTTP. */
  async function studentStartsTheExam(): Promise<void> {
    const { app, lms } = s;
    await proveSeedContexts(lms, app.db.orm);
    const issued = lms.oauth.issueToken({ user: 3, scopes: APPLICATION_SCOPES, expiresIn: 3600 });
    const oauth = createOAuthServices(app.config, app.db.orm, new OneTimeStore(app.db.pool, deriveKey(app.config.secrets.appSecret, 'one-time-store')), createLogger('silent'));
    await oauth.oauth.tokens.saveAuthorization({
      lmsUserId: '3',
      scopes: APPLICATION_SCOPES,
      accessToken: issued.response.access_token,
      refreshToken: issued.response.refresh_token ?? null,
      expiresInSeconds: issued.response.expires_in ?? null,
      lmsUserName: issued.response.user.name,
      lmsGlobalUserId: issued.response.user.global_id,
      lmsRegion: issued.response.canvas_region,
      accountId: null,
      ltiIssuer: ISSUER,
      ltiSubject: subjectFor(3),
    });
    const session = sessionFor(app.app, student());
    const actionToken = ActionTokens.fromAppSecret(app.config.secrets.appSecret).issue(session.session, 'config-grant');
    const grant = await fetch(`${app.url}/api/exb/config-grant/${COURSE}/${CONTENT_ID}`, {
      method: 'POST',
      headers: { cookie: session.cookie, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' },
      body: JSON.stringify({ actionToken }),
    });
    expect(grant.status, await grant.clone().text()).toBe(200);
    const { exbLaunchUrl } = (await grant.json()) as { exbLaunchUrl: string };
    const opened = openConfiguration((await downloadConfiguration(exbLaunchUrl)).bytes, developmentIdentity(app.dataDir));
    const url = `${lms.baseUrl}/courses/${COURSE}/quizzes/201/take`;
    const proof = await fetch(`${app.url}/api/exb/access-proof/${COURSE}/${CONTENT_ID}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ configKeyHash: configKeyHashFor(url, opened.configKey), url }),
    });
    expect(proof.status).toBe(200);
    const { proofToken } = (await proof.json()) as { proofToken: string };
    const release = await fetch(`${app.url}/api/exb/access-code/${COURSE}/${CONTENT_ID}`, { method: 'POST', headers: { 'x-exb-proof-token': proofToken } });
    expect(release.status).toBe(200);
  }

  it('the teacher’s Activity panel shows the change and, live, the download and the release', async () => {
    expect(await callInFrame('PUT', `/api/quizzes/course/${COURSE}/defaults`, { quitPassword: 'activity-exit-1' })).toBe(200);
    expect(await callInFrame('POST', `/api/quizzes/${COURSE}/201/exb/enable`)).toBe(200);
    await s.tool.getByRole('button', { name: 'Refresh from LMS' }).click();
    await s.tool.getByRole('button', { name: 'Settings of Midterm exam' }).click();
    const panel = s.tool.getByTestId('activity-panel');
    await s.visible(panel.getByRole('heading', { name: 'Activity' }), PAGE_TIMEOUT_MS);
    await s.visible(panel.getByText('Exam browser required'));
    await s.visible(panel.getByText(/LMS user 2/));
    const downloads = panel.locator('dd').nth(0);
    const releases = panel.locator('dd').nth(2);
    expect(await downloads.textContent()).toBe('0');

    await studentStartsTheExam();
    // No reload: the panel polls while the page is visible.
    await expect.poll(() => downloads.textContent(), { timeout: 15_000 }).toMatch(/^1 \(last /);
    await expect.poll(() => releases.textContent(), { timeout: 15_000 }).toMatch(/^1 \(last /);
    await panel.scrollIntoViewIfNeeded();
    await s.screenshotOf(panel, 'activity-panel');
    await s.screenshot('activity-in-policy-editor');
    expect(await seriousViolations(s.page)).toEqual([]);

    await s.page.setViewportSize({ width: 390, height: 844 });
    await panel.scrollIntoViewIfNeeded();
    await s.screenshotOf(panel, 'activity-panel-narrow');
    await s.page.setViewportSize({ width: 1100, height: 900 });
  }, 60_000);

  it('the administrator’s audit trail lists the account’s entries, filters them and offers the CSV', async () => {
    const page = await s.context.newPage();
    const tool = await launchIntoToolFrame(page, s.lms.launchPageUrl, 'Launch as administrator', s.app.url!);
    const [popup] = await Promise.all([page.waitForEvent('popup'), tool.getByRole('button', { name: 'Authorize administrator access in the LMS' }).click({ timeout: PAGE_TIMEOUT_MS })]);
    await approveLmsAuthorization(popup, s.lms.baseUrl, s.app.url!);
    await popup.getByRole('heading', { name: 'Connected to the LMS' }).waitFor({ timeout: PAGE_TIMEOUT_MS });
    await popup.close();
    await tool.getByRole('tab', { name: 'Connected courses' }).waitFor({ timeout: PAGE_TIMEOUT_MS });
    // The instructor's course joins the account's trail once the administrator connects it (the page's own route).
    const connected = await tool.evaluate(async (courseId) => {
      const { actionToken } = JSON.parse(document.getElementById('exb-bootstrap')!.textContent!) as { actionToken: string };
      const response = await fetch('/api/admin/courses/connect', {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'content-type': 'application/json', 'x-exb-action-token': actionToken },
        body: JSON.stringify({ courseIds: [courseId] }),
      });
      return response.status;
    }, COURSE);
    expect(connected).toBe(200);
    await tool.getByRole('tab', { name: 'Audit trail' }).click();
    const table = tool.getByRole('table', { name: /Audit trail entries/ });
    await table.waitFor({ timeout: PAGE_TIMEOUT_MS });
    await expect.poll(() => table.getByRole('row').count()).toBe(3);
    await tool.getByText('Exam browser required').first().waitFor();
    await tool.getByText('Course defaults saved').first().waitFor();

    await tool.getByLabel('Action').click();
    await tool.getByRole('option', { name: 'Exam browser required' }).click();
    await tool.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => table.getByRole('row').count()).toBe(2);
    const csv = tool.getByRole('link', { name: /Download as CSV/ });
    // The link carries the filters and, for a frame that keeps no cookie, the page's session token.
    const href = new URL((await csv.getAttribute('href'))!, 'http://service.invalid');
    expect(href.pathname).toBe('/api/admin/audit.csv');
    expect([...href.searchParams.keys()]).toEqual(['action', 'session_token']);
    expect(href.searchParams.get('action')).toBe('enforcement.enable');
    // The link's answer as the browser gets it: the session's CSV, one entry under the header.
    const body = await tool.evaluate(async (href) => {
      const response = await fetch(href!, { credentials: 'same-origin' });
      return { type: response.headers.get('content-type'), disposition: response.headers.get('content-disposition'), text: await response.text() };
    }, await csv.getAttribute('href'));
    expect(body.type).toBe('text/csv; charset=utf-8');
    expect(body.disposition).toMatch(/filename="exam-audit-/);
    expect(body.text.trimEnd().split('\r\n')).toHaveLength(2);
    expect(body.text).not.toContain('activity-exit-1');

    /** The whole tool as the LMS shows it: the frame stretched to its content, so nothing is cut off. */
    const shot = async (name: string) => {
      const height = await tool.evaluate(() => document.documentElement.scrollHeight);
      await page.evaluate((h) => void (document.querySelector<HTMLIFrameElement>('iframe#tool_content')!.style.height = `${h + 4}px`), height);
      await page.screenshot({ path: `${s.shots}/${name}.png`, fullPage: true });
      await page.evaluate(() => void (document.querySelector<HTMLIFrameElement>('iframe#tool_content')!.style.height = ''));
    };
    await shot('audit-trail');
    expect(await seriousViolations(page)).toEqual([]);
    await page.setViewportSize({ width: 390, height: 844 });
    await shot('audit-trail-narrow');
    expect(await seriousViolations(page)).toEqual([]);
    await page.close();
  }, 120_000);
});
