import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import AxeBuilder from '@axe-core/playwright';
import type { BrowserContext, Frame, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../server/src/free-port.js';
import { createTestApp, type TestApp } from '../../server/test/support/app.js';
import { createMockLms, type MockLms, type RunningLmsServer } from '../src/lms/index.js';
import { browserAvailable, launchBrowser, type LaunchedBrowser } from '../src/support/browser.js';
import { approveLmsAuthorization, launchIntoToolFrame, PAGE_TIMEOUT_MS, watchServiceProblems } from '../src/support/tool-frame.js';

const CLIENT_MANIFEST = fileURLToPath(new URL('../../client/dist/.vite/manifest.json', import.meta.url));
const CLIENT_ID = '10000000000001';
const DEPLOYMENT_ID = '1:8865aa05b4b79b64a91a86042e43af5ea8ae79eb';
const ISSUER = 'https://canvas.instructure.com';
const OAUTH_CLIENT_ID = '10000000000002';
const OAUTH_CLIENT_SECRET = 'admin-presets-secret';
/** Courses of the school beyond the seed, so a rollout takes several passes of the batch. */
const EXTRA_COURSES = 46;
const BATCH_SIZE = 4;

function screenshotFolder(): string {
  const folder = process.env.ADMIN_VIEW_SCREENSHOTS ?? mkdtempSync(path.join(tmpdir(), 'exb-admin-presets-'));
  mkdirSync(folder, { recursive: true });
  return folder;
}

/** The refusal the walk provokes on purpose: deleting a preset that is still assigned (409). */
function provokedRefusal(url: string, status: number): boolean {
  return url.includes('/trpc/') && status === 409 && decodeURIComponent(url).includes('admin.toolPresets.delete');
}

describe.runIf(browserAvailable())('the tool presets of the administrator dashboard in Chromium', { timeout: 180_000 }, () => {
  let t: TestApp;
  let lms: MockLms;
  let lmsServer: RunningLmsServer;
  let browser: LaunchedBrowser;
  let context: BrowserContext;
  let page: Page;
  let tool: Frame;
  let shots: string;
  const problems: string[] = [];
  const sql = <T = unknown>(query: string, params: unknown[] = []) => t.db.orm.em.getConnection().execute<T[]>(query, params);

  beforeAll(async () => {
    if (!existsSync(CLIENT_MANIFEST)) throw new Error('the client bundle is missing: run `npm run build -w client`');
    const lmsUrl = `http://127.0.0.1:${await freePort()}`;
    t = await createTestApp({
      listen: true,
      env: {
        LMS_URL: lmsUrl,
        LTI_ISSUER: ISSUER,
        LTI_CLIENT_ID: CLIENT_ID,
        LTI_DEPLOYMENT_ID: DEPLOYMENT_ID,
        LMS_OAUTH_CLIENT_ID: OAUTH_CLIENT_ID,
        LMS_OAUTH_CLIENT_SECRET: OAUTH_CLIENT_SECRET,
        ADMIN_RECONCILE_BATCH_SIZE: String(BATCH_SIZE),
      },
    });
    lms = createMockLms({
      baseUrl: lmsUrl,
      issuer: ISSUER,
      tool: { baseUrl: t.url!, clientId: CLIENT_ID, deploymentId: DEPLOYMENT_ID, oauthClientId: OAUTH_CLIENT_ID, oauthClientSecret: OAUTH_CLIENT_SECRET },
    });
    lmsServer = await lms.startHttpServer();
    browser = await launchBrowser();
    context = await browser.browser.newContext({ viewport: { width: 1100, height: 900 } });
    page = await context.newPage();
    watchServiceProblems(page, t.url!, problems, provokedRefusal);
    shots = screenshotFolder();
    process.stderr.write(`\n[admin-presets] screenshots in ${shots}\n`);
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await lmsServer?.close();
    await t?.close();
  });
  afterEach(async (test) => {
    if (test.task.result?.state === 'fail' && tool) await screenshot(`failed-${test.task.name.replace(/\W+/g, '-')}`).catch(() => {});
  });

  async function screenshot(name: string) {
    const height = await tool.evaluate(() => document.documentElement.scrollHeight);
    await page.evaluate((h) => {
      const frame = document.querySelector<HTMLIFrameElement>('iframe#tool_content');
      if (frame) frame.style.height = `${h + 4}px`;
    }, height);
    await page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });
    await page.evaluate(() => {
      const frame = document.querySelector<HTMLIFrameElement>('iframe#tool_content');
      if (frame) frame.style.height = '';
    });
  }

  async function visible(locator: Locator, timeout = 10_000) {
    await locator.first().waitFor({ state: 'visible', timeout });
  }

  async function accessibilityViolations(): Promise<string[]> {
    const results = await new AxeBuilder({ page }).analyze();
    const inTool = (node: { target: unknown[] }) => String(node.target[0]).includes('tool_content');
    expect(results.passes.some((rule) => rule.nodes.some(inTool))).toBe(true);
    return results.violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .flatMap((violation) => violation.nodes.filter(inTool).map((node) => `${violation.id}: ${node.target.join(' > ')}`));
  }

  const card = (name: string) => tool.getByRole('article').filter({ has: tool.getByRole('heading', { name, exact: true }) });

  it('opens the presets page of an authorized administrator with connected courses', async () => {
    tool = await launchIntoToolFrame(page, lms.launchPageUrl, 'Launch as administrator', t.url!);
    const [popup] = await Promise.all([
      page.waitForEvent('popup'),
      (async () => {
        await visible(tool.getByRole('button', { name: 'Authorize administrator access in the LMS' }), PAGE_TIMEOUT_MS);
        await tool.getByRole('button', { name: 'Authorize administrator access in the LMS' }).click();
      })(),
    ]);
    await approveLmsAuthorization(popup, lms.baseUrl, t.url!);
    await visible(popup.getByRole('heading', { name: 'Connected to the LMS' }));
    await popup.close();
    // The school: the seeded courses and a few dozen more, connected as the catalog would connect them.
    for (let index = 0; index < EXTRA_COURSES; index += 1) {
      lms.state.addCourse({ id: 2001 + index, name: `Mathematics ${2001 + index}`, courseCode: `MATH${2001 + index}`, accountId: 1 });
    }
    await sql(
      `insert into admin_course (course_id, account_id, name, course_code, origin)
       select id::text, '1', name, code, 'admin' from (values (101, 'Biology 101', 'BIO101'), (102, 'Chemistry 201', 'CHEM201')) as seeded(id, name, code)
       union all select (2000 + n)::text, '1', 'Mathematics ' || (2000 + n), 'MATH' || (2000 + n), 'admin' from generate_series(1, ?) as n`,
      [EXTRA_COURSES],
    );
    await visible(tool.getByRole('tab', { name: 'Tool presets' }), PAGE_TIMEOUT_MS);
    await tool.getByRole('tab', { name: 'Tool presets' }).click();
    await visible(tool.getByText('No presets yet.'));
    await screenshot('01-presets-empty');
    expect(await accessibilityViolations()).toEqual([]);
  });

  it('creates a preset, showing wrong input at its field first', async () => {
    await tool.getByRole('button', { name: 'New preset' }).click();
    await tool.getByLabel('Name students see').fill('Calculator');
    await tool.getByLabel('Launch address').fill('http://calc.example.edu/app');
    await tool.getByRole('button', { name: 'Create preset' }).click();
    await visible(tool.getByText('Preset name', { exact: false }));
    // The name is missing: the message stands at the name, which has the focus.
    await visible(tool.getByText('Name is required'));
    await tool.getByLabel('Preset name').fill('School calculator');
    await tool.getByRole('button', { name: 'Create preset' }).click();
    await visible(tool.getByText(/https/i).filter({ hasText: /HTTPS|https:\/\// }));
    await screenshot('02-preset-wrong-address');
    expect(await accessibilityViolations()).toEqual([]);
    await tool.getByLabel('Launch address').fill('https://calc.example.edu/app');
    await tool.getByLabel('Description').fill('Allowed in every mathematics exam.');
    await tool.getByRole('button', { name: 'Create preset' }).click();
    await visible(card('School calculator'));
    await visible(card('School calculator').getByText('0 assigned'));
    await screenshot('03-preset-created');
  });

  it('assigns the preset to a searched course', async () => {
    await card('School calculator').getByRole('button', { name: /Courses and history/ }).click();
    await tool.getByLabel('Search connected courses').fill('biology');
    await visible(tool.getByRole('rowheader', { name: 'Biology 101' }));
    await expect.poll(() => tool.getByRole('rowheader', { name: 'Chemistry 201' }).count()).toBe(0);
    await tool.getByLabel('Select Biology 101').click({ force: true });
    await tool.getByRole('button', { name: 'Assign to 1 selected' }).click();
    await visible(tool.getByText('Rollout finished'));
    await visible(card('School calculator').getByText('1 assigned'));
    expect(await sql(`select course_id, status from admin_tool_preset_assignment`)).toEqual([{ course_id: '101', status: 'applied' }]);
  });

  it('rolls out to every connected course with visible progress, then retries the courses that failed', async () => {
    // Two courses are busy with another change: their synchronization fails and waits for the retry.
    await sql(`insert into lease (name, owner, expires_at) values ('course-write:2001', 'teacher', now() + interval '10 minutes'), ('course-write:2002', 'teacher', now() + interval '10 minutes')`);
    // Each pass a little slower than it is here, so the bar can be seen (and photographed) moving.
    await page.route('**/trpc/admin.toolPresets.reconcile**', async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 400));
      await route.continue();
    });
    await tool.getByLabel('Search connected courses').fill('');
    await tool.getByLabel(/All connected courses/).click({ force: true });
    await tool.getByRole('button', { name: 'Assign to all connected courses' }).click();
    await visible(tool.getByText('Rollout in progress'));
    const bar = tool.locator('progress');
    await expect.poll(async () => Number(await bar.getAttribute('value'))).toBeGreaterThan(BATCH_SIZE);
    const midway = { value: Number(await bar.getAttribute('value')), max: Number(await bar.getAttribute('max')) };
    expect(midway.max).toBe(EXTRA_COURSES + 2);
    expect(midway.value).toBeLessThan(midway.max);
    await screenshot('04-rollout-progress');
    expect(await accessibilityViolations()).toEqual([]);

    await visible(tool.getByText('Rollout finished'), 60_000);
    await visible(tool.getByText('2 courses could not be updated'));
    await visible(tool.getByText('Mathematics 2001 (MATH2001): Another change to the course was running.'));
    await visible(card('School calculator').getByText('2 failed'));
    await screenshot('05-rollout-failures');

    await sql(`delete from lease where name like 'course-write:%'`);
    await tool.getByRole('button', { name: 'Retry failed courses' }).click();
    await expect.poll(() => tool.getByText('could not be updated').count(), { timeout: 30_000 }).toBe(0);
    await visible(tool.getByText('Rollout finished'));
    await expect.poll(() => card('School calculator').getByText('failed').count()).toBe(0);
    await visible(card('School calculator').getByText(`${EXTRA_COURSES + 2} assigned`));
    expect(await sql(`select count(*)::int as n from admin_tool_preset_assignment where status <> 'applied'`)).toEqual([{ n: 0 }]);
    const [catalogs] = await sql<{ n: number }>(`select count(*)::int as n from course_defaults where external_tools @> '[{"managedByAdmin": true}]'::jsonb`);
    expect(catalogs!.n).toBe(EXTRA_COURSES + 2);
    await page.unroute('**/trpc/admin.toolPresets.reconcile**');
    await screenshot('06-rollout-retried');
  });

  it('shows who changed the preset and when', async () => {
    await card('School calculator').getByRole('tab', { name: 'History' }).click();
    await visible(tool.getByText(/Rollout started \(assign; 48 queued/));
    await visible(tool.getByText(/Created/));
    // Past the tab's fade-in, so the picture (and the contrast check) shows the settled page.
    await page.waitForTimeout(600);
    await screenshot('07-history');
    expect(await accessibilityViolations()).toEqual([]);
  });

  it('edits the preset and refuses to delete it while it is assigned', async () => {
    await card('School calculator').getByRole('button', { name: /^Edit/ }).click();
    await tool.getByLabel('Launch address').fill('https://calc.example.edu/v2');
    await tool.getByRole('button', { name: 'Save changes' }).click();
    await visible(tool.getByText('calc.example.edu').first());
    // The change waits in every course until passes carry it there; the page drives them on request.
    await card('School calculator').getByRole('tab', { name: 'Courses' }).click();
    await tool.getByRole('button', { name: 'Update the courses now' }).click();
    await visible(tool.getByText(`${EXTRA_COURSES + 2} courses updated.`), 60_000);
    const [updated] = await sql<{ n: number }>(`select count(*)::int as n from course_defaults where external_tools @> '[{"url": "https://calc.example.edu/v2"}]'::jsonb`);
    expect(updated!.n).toBe(EXTRA_COURSES + 2);
    await card('School calculator').getByRole('button', { name: /^Delete/ }).click();
    await tool.getByRole('button', { name: 'Delete preset' }).click();
    await visible(tool.getByText(/still assigned to courses/));
    await screenshot('08-delete-refused');
  });

  it('fits a narrow LMS frame without scrolling sideways', async () => {
    await page.setViewportSize({ width: 560, height: 900 });
    await card('School calculator').getByRole('tab', { name: 'Courses' }).click();
    await tool.getByLabel('Search connected courses').fill('chemistry');
    await expect.poll(() => tool.getByRole('rowheader', { name: 'Biology 101' }).count()).toBe(0);
    await visible(tool.getByRole('rowheader', { name: 'Chemistry 201' }));
    expect(await tool.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
    await screenshot('09-narrow');
    expect(await accessibilityViolations()).toEqual([]);
    await page.setViewportSize({ width: 1100, height: 900 });
    expect(problems).toEqual([]);
  });
});
