import type { Frame } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserAvailable } from '../src/support/browser.js';
import { PAGE_TIMEOUT_MS } from '../src/support/tool-frame.js';
import { useAdminSession } from './admin-session.js';

/** Courses of the school beyond the seed, so a rollout takes several passes of the batch. */
const EXTRA_COURSES = 46;
const BATCH_SIZE = 4;

/** The refusal the walk provokes on purpose: deleting a preset that is still assigned (409). */
function provokedRefusal(url: string, status: number): boolean {
  return url.includes('/trpc/') && status === 409 && decodeURIComponent(url).includes('admin.toolPresets.delete');
}

describe.runIf(browserAvailable())('the tool presets of the administrator dashboard in Chromium', { timeout: 180_000 }, () => {
  const s = useAdminSession({
    name: 'admin-presets',
    screenshotsVariable: 'ADMIN_VIEW_SCREENSHOTS',
    provokedRefusal,
    env: { ADMIN_RECONCILE_BATCH_SIZE: String(BATCH_SIZE) },
  });
  let tool: Frame;

  const card = (name: string) => tool.getByRole('article').filter({ has: tool.getByRole('heading', { name, exact: true }) });

  it('opens the presets page of an authorized administrator with connected courses', async () => {
    tool = await s.launch();
    await s.authorize(tool.getByRole('tab', { name: 'Tool presets' }));
    // The school: the seeded courses and a few dozen more, connected as the catalog would connect them.
    for (let index = 0; index < EXTRA_COURSES; index += 1) {
      s.lms.state.addCourse({ id: 2001 + index, name: `Mathematics ${2001 + index}`, courseCode: `MATH${2001 + index}`, accountId: 1 });
    }
    await s.sql(
      `insert into admin_course (course_id, account_id, name, course_code, origin)
       select id::text, '1', name, code, 'admin' from (values (101, 'Biology 101', 'BIO101'), (102, 'Chemistry 201', 'CHEM201')) as seeded(id, name, code)
       union all select (2000 + n)::text, '1', 'Mathematics ' || (2000 + n), 'MATH' || (2000 + n), 'admin' from generate_series(1, ?) as n`,
      [EXTRA_COURSES],
    );
    await tool.getByRole('tab', { name: 'Tool presets' }).click();
    await s.visible(tool.getByText('No presets yet.'));
    await s.screenshot('01-presets-empty');
    expect(await s.accessibilityViolations()).toEqual([]);
  });

  it('creates a preset, showing wrong input at its field first', async () => {
    await tool.getByRole('button', { name: 'New preset' }).click();
    await tool.getByLabel('Name students see').fill('Calculator');
    await tool.getByLabel('Launch address').fill('http://calc.example.edu/app');
    await tool.getByRole('button', { name: 'Create preset' }).click();
    await s.visible(tool.getByText('Preset name', { exact: false }));
    // The name is missing: the message stands at the name, which has the focus.
    await s.visible(tool.getByText('Name is required'));
    await tool.getByLabel('Preset name').fill('School calculator');
    await tool.getByRole('button', { name: 'Create preset' }).click();
    await s.visible(tool.getByText(/https/i).filter({ hasText: /HTTPS|https:\/\// }));
    await s.screenshot('02-preset-wrong-address');
    expect(await s.accessibilityViolations()).toEqual([]);
    await tool.getByLabel('Launch address').fill('https://calc.example.edu/app');
    await tool.getByLabel('Description').fill('Allowed in every mathematics exam.');
    await tool.getByRole('button', { name: 'Create preset' }).click();
    await s.visible(card('School calculator'));
    await s.visible(card('School calculator').getByText('0 assigned'));
    await s.screenshot('03-preset-created');
  });

  it('assigns the preset to a searched course', async () => {
    await card('School calculator').getByRole('button', { name: /Courses and history/ }).click();
    await tool.getByLabel('Search connected courses').fill('biology');
    await s.visible(tool.getByRole('rowheader', { name: 'Biology 101' }));
    await expect.poll(() => tool.getByRole('rowheader', { name: 'Chemistry 201' }).count()).toBe(0);
    await tool.getByLabel('Select Biology 101').click({ force: true });
    await tool.getByRole('button', { name: 'Assign to 1 selected' }).click();
    await s.visible(tool.getByText('Rollout finished'));
    await s.visible(card('School calculator').getByText('1 assigned'));
    expect(await s.sql(`select course_id, status from admin_tool_preset_assignment`)).toEqual([{ course_id: '101', status: 'applied' }]);
  });

  it('rolls out to every connected course with visible progress, then retries the courses that failed', async () => {
    // Two courses are busy with another change: their synchronization fails and waits for the retry.
    await s.sql(`insert into lease (name, owner, expires_at) values ('course-write:2001', 'teacher', now() + interval '10 minutes'), ('course-write:2002', 'teacher', now() + interval '10 minutes')`);
    // Each pass a little slower than it is here, so the bar can be seen (and photographed) moving.
    await s.page.route('**/trpc/admin.toolPresets.reconcile**', async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 400));
      await route.continue();
    });
    await tool.getByLabel('Search connected courses').fill('');
    await tool.getByLabel(/All connected courses/).click({ force: true });
    await tool.getByRole('button', { name: 'Assign to all connected courses' }).click();
    await s.visible(tool.getByText('Rollout in progress'));
    const bar = tool.locator('progress');
    await expect.poll(async () => Number(await bar.getAttribute('value'))).toBeGreaterThan(BATCH_SIZE);
    const midway = { value: Number(await bar.getAttribute('value')), max: Number(await bar.getAttribute('max')) };
    expect(midway.max).toBe(EXTRA_COURSES + 2);
    expect(midway.value).toBeLessThan(midway.max);
    await s.screenshot('04-rollout-progress');
    expect(await s.accessibilityViolations()).toEqual([]);

    await s.visible(tool.getByText('Rollout finished'), 60_000);
    await s.visible(tool.getByText('2 courses could not be updated'));
    await s.visible(tool.getByText('Mathematics 2001 (MATH2001): Another change to the course was running.'));
    await s.visible(card('School calculator').getByText('2 failed'));
    await s.screenshot('05-rollout-failures');

    await s.sql(`delete from lease where name like 'course-write:%'`);
    await tool.getByRole('button', { name: 'Retry failed courses' }).click();
    await expect.poll(() => tool.getByText('could not be updated').count(), { timeout: 30_000 }).toBe(0);
    await s.visible(tool.getByText('Rollout finished'));
    await expect.poll(() => card('School calculator').getByText('failed').count()).toBe(0);
    await s.visible(card('School calculator').getByText(`${EXTRA_COURSES + 2} assigned`));
    expect(await s.sql(`select count(*)::int as n from admin_tool_preset_assignment where status <> 'applied'`)).toEqual([{ n: 0 }]);
    const [catalogs] = await s.sql<{ n: number }>(`select count(*)::int as n from course_defaults where external_tools @> '[{"managedByAdmin": true}]'::jsonb`);
    expect(catalogs!.n).toBe(EXTRA_COURSES + 2);
    await s.page.unroute('**/trpc/admin.toolPresets.reconcile**');
    await s.screenshot('06-rollout-retried');
  });

  it('offers to roll out an edit, instead of a finished rollout beside the courses waiting for it', async () => {
    const calculator = card('School calculator');
    // The courses panel still shows the finished rollout when the administrator edits the preset.
    await s.visible(calculator.getByText('Rollout finished'));
    await calculator.getByRole('button', { name: /^Edit/ }).click();
    await tool.getByLabel('Name students see').fill('Scientific calculator');
    await tool.getByRole('button', { name: 'Save changes' }).click();
    await s.visible(calculator.getByText(`${EXTRA_COURSES + 2} pending`), PAGE_TIMEOUT_MS);
    // One state: every course waits for the change, and the panel offers to roll it out.
    await s.visible(calculator.getByText(`${EXTRA_COURSES + 2} courses wait for the current definition of this preset.`));
    await s.gone(calculator.getByText('Rollout finished'));
    expect(await calculator.getByText(`${EXTRA_COURSES + 2} courses updated.`).count()).toBe(0);
    await s.screenshot('06b-edit-offers-rollout');
    expect(await s.accessibilityViolations()).toEqual([]);
    await calculator.getByRole('button', { name: 'Update the courses now' }).click();
    await s.visible(calculator.getByText(`${EXTRA_COURSES + 2} courses updated.`), 60_000);
    await s.gone(calculator.getByText(/\d+ pending$/));
    const [updated] = await s.sql<{ n: number }>(`select count(*)::int as n from course_defaults where external_tools @> '[{"label": "Scientific calculator"}]'::jsonb`);
    expect(updated!.n).toBe(EXTRA_COURSES + 2);
    await s.screenshot('06c-edit-rolled-out');
  });

  it('shows who changed the preset and when', async () => {
    await card('School calculator').getByRole('tab', { name: 'History' }).click();
    await s.visible(tool.getByText(/Rollout started \(assign; 48 queued/));
    await s.visible(tool.getByText(/Created/));
    // Past the tab's fade-in, so the picture (and the contrast check) shows the settled s.page.
    await s.page.waitForTimeout(600);
    await s.screenshot('07-history');
    expect(await s.accessibilityViolations()).toEqual([]);
  });

  it('edits the preset and refuses to delete it while it is assigned', async () => {
    await card('School calculator').getByRole('button', { name: /^Edit/ }).click();
    await tool.getByLabel('Launch address').fill('https://calc.example.edu/v2');
    await tool.getByRole('button', { name: 'Save changes' }).click();
    await s.visible(tool.getByText('calc.example.edu').first());
    // The change waits in every course until passes carry it there; the page drives them on request.
    await card('School calculator').getByRole('tab', { name: 'Courses' }).click();
    await tool.getByRole('button', { name: 'Update the courses now' }).click();
    await s.visible(tool.getByText(`${EXTRA_COURSES + 2} courses updated.`), 60_000);
    const [updated] = await s.sql<{ n: number }>(`select count(*)::int as n from course_defaults where external_tools @> '[{"url": "https://calc.example.edu/v2"}]'::jsonb`);
    expect(updated!.n).toBe(EXTRA_COURSES + 2);
    await card('School calculator').getByRole('button', { name: /^Delete/ }).click();
    await tool.getByRole('button', { name: 'Delete preset' }).click();
    await s.visible(tool.getByText(/still assigned to courses/));
    await s.screenshot('08-delete-refused');
  });

  it('fits a narrow LMS frame without scrolling sideways', async () => {
    await s.page.setViewportSize({ width: 560, height: 900 });
    await card('School calculator').getByRole('tab', { name: 'Courses' }).click();
    await tool.getByLabel('Search connected courses').fill('chemistry');
    await expect.poll(() => tool.getByRole('rowheader', { name: 'Biology 101' }).count()).toBe(0);
    await s.visible(tool.getByRole('rowheader', { name: 'Chemistry 201' }));
    await expect.poll(() => s.fitsWidth(), { timeout: PAGE_TIMEOUT_MS }).toBe(true);
    await s.screenshot('09-narrow');
    expect(await s.accessibilityViolations()).toEqual([]);
    await s.page.setViewportSize({ width: 1100, height: 900 });
    expect(s.problems).toEqual([]);
  });
});
