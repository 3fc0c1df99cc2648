import { describe, expect, it } from 'vitest';
import type { Frame } from 'playwright-core';
import { createSettingsRepository } from '../../server/src/domain/settings/settings-repository.js';
import { defaultAssessmentSettings } from '../../server/src/domain/settings/model.js';
import { createContext, createPreExamSweep } from '../../server/src/app.js';
import { createLogger } from '../../server/src/logger.js';
import { browserAvailable } from '../src/support/browser.js';
import { PAGE_TIMEOUT_MS } from '../src/support/tool-frame.js';
import { useAdminSession } from './admin-session.js';

const LAB = 'Lab safety check';
const ORIGINAL = { courseId: '104', contentId: 'classicquiz_206' };

/**
 * A course copy brought "Lab safety check" into Biology 101 with its access code. The root administrator, who teaches
 * neither course, adopts it in the course's quiz list with the settings of the enforced "Lab safety check" of History
 * 110, another connected course of the account: the same choices the teacher has, with the administrator's grant.
 */
describe.runIf(browserAvailable())('the administrator adopts a copied quiz with its original’s settings, in Chromium', { timeout: 180_000 }, () => {
  const s = useAdminSession({ name: 'admin-adopt-original', screenshotsVariable: 'ADMIN_ADOPT_SCREENSHOTS', settleBeforeScreenshots: true });
  let tool: Frame;
  const row = (name: string) => tool.getByRole('row').filter({ has: tool.getByRole('rowheader', { name, exact: false }) });
  const pickToggle = () => row(LAB).getByRole('button', { name: `Adopt with the original assessment’s settings for ${LAB}` });

  it('offers the choices of a quiz whose code is not managed here', async () => {
    // History 110 enforces its own "Lab safety check", with an exit password and a URL rule of its own.
    await s.sql(
      "insert into assessment (course_id, content_id, content_type, lms_assessment_id, title, published) values (?, ?, 'CLASSIC_QUIZ', '206', ?, true)",
      [ORIGINAL.courseId, ORIGINAL.contentId, LAB],
    );
    await createSettingsRepository(s.app.db, s.app.config.secrets.appSecret).saveAssessmentSettings(ORIGINAL.courseId, {
      ...defaultAssessmentSettings(ORIGINAL.courseId, ORIGINAL.contentId),
      exbRequired: true,
      enabled: true,
      accessCode: 'history-code',
      usesCourseDefaults: false,
      urlRules: [{ id: 'r1', match: 'exact', value: 'https://example.org/safety-sheet' }],
      exitPasswordOverride: 'exit-from-history',
    });

    tool = await s.launch();
    await s.authorize(tool.getByRole('tab', { name: 'Connected courses' }));
    await tool.getByRole('tab', { name: 'Connect courses' }).click();
    await tool.getByLabel('Course ids or course addresses').fill('101, 104');
    await tool.getByRole('button', { name: 'Connect 2 courses' }).click();
    await s.visible(tool.getByText('Connected 2 courses.'), PAGE_TIMEOUT_MS);
    await tool.getByRole('tab', { name: 'Connected courses' }).click();
    await tool.getByRole('button', { name: 'Biology 101' }).click();
    await tool.getByRole('button', { name: 'Refresh from LMS' }).click();
    await s.visible(tool.getByText('Found 6 quizzes in the LMS.'), PAGE_TIMEOUT_MS);
    await s.visible(row(LAB).getByText('Access code not managed here', { exact: true }));
    await s.visible(row(LAB).getByRole('button', { name: `Remove the code in the LMS for ${LAB}` }));
    await s.visible(row(LAB).getByRole('button', { name: `Replace it with this tool’s code for ${LAB}` }));
    expect(await pickToggle().getAttribute('aria-expanded')).toBe('false');
    // Only the quiz that carries such a code offers them.
    expect(await row('Midterm exam').getByTestId('unmanaged-code-choices').count()).toBe(0);
    await s.screenshot('01-unmanaged-choices');
    expect(await s.accessibilityViolations()).toEqual([]);
  });

  it('lists the enforced quizzes of the same title in the account’s connected courses', async () => {
    await pickToggle().click();
    await s.visible(row(LAB).getByText('Enforced assessments titled like this one in the account’s connected courses.', { exact: false }), PAGE_TIMEOUT_MS);
    const pick = row(LAB).getByRole('button', { name: 'Adopt settings from History 110' });
    await s.visible(pick);
    expect(await row(LAB).getByRole('button', { name: /^Adopt settings from/ }).count()).toBe(1);
    expect(await pickToggle().getAttribute('aria-expanded')).toBe('true');
    await s.screenshot('02-candidates');
    expect(await s.accessibilityViolations()).toEqual([]);

    await s.page.setViewportSize({ width: 360, height: 800 });
    await s.visible(pick);
    expect(await s.fitsWidth()).toBe(true);
    await s.screenshot('03-candidates-360');
    expect(await s.accessibilityViolations()).toEqual([]);
    await s.page.setViewportSize({ width: 1100, height: 900 });
  });

  it('adopts the original’s settings with this service’s own code, audited as the administrator’s', async () => {
    await row(LAB).getByRole('button', { name: 'Adopt settings from History 110' }).click();
    await s.visible(row(LAB).getByText('Required', { exact: true }), PAGE_TIMEOUT_MS);
    await s.gone(row(LAB).getByTestId('unmanaged-code-choices'));
    await expect
      .poll(() => tool.locator('#exb-live-region').textContent(), { timeout: PAGE_TIMEOUT_MS })
      .toContain(`${LAB}: The exam browser is now required, with the original assessment’s settings.`);
    const adopted = (await createSettingsRepository(s.app.db, s.app.config.secrets.appSecret).loadAssessmentSettings('101', 'classicquiz_204'))!;
    expect(adopted).toMatchObject({ exbRequired: true, enabled: true, exitPasswordOverride: 'exit-from-history', usesCourseDefaults: false });
    expect(adopted.urlRules).toEqual([expect.objectContaining({ value: 'https://example.org/safety-sheet' })]);
    expect(s.lms.state.quizzes.get(204)!.accessCode).toBe(adopted.accessCode);
    expect(adopted.accessCode).not.toMatch(/^(lab-2026|history-code)$/);
    const audit = await s.sql<{ outcome: string; actor_role: string }>("select outcome, actor_role from audit_entry where action = 'enforcement.adopt-original'");
    expect(audit).toEqual([{ outcome: 'success', actor_role: 'admin' }]);
    await s.screenshot('04-adopted');
    expect(await s.accessibilityViolations()).toEqual([]);

    // The account's audit trail names it in words, with the course and the quiz.
    await tool.getByRole('button', { name: 'All courses' }).click();
    await tool.getByRole('tab', { name: 'Audit trail' }).click();
    await s.visible(tool.getByRole('cell', { name: 'Enforcement adopted with the original assessment’s settings', exact: true }), PAGE_TIMEOUT_MS);
    await s.visible(tool.getByRole('cell', { name: `Biology 101 · ${LAB}`, exact: true }));
    await s.screenshot('05-audit-trail');
    expect(s.problems).toEqual([]);
  });

  it('alerts the dashboard when the adopted quiz loses its code within the hour before its start', async () => {
    // The quiz is due in 50 minutes and the LMS lost its code; Biology 101 has not opted in to automatic repairs.
    const due = new Date(Date.now() + 50 * 60_000);
    await s.sql("update assessment set due_at = ? where course_id = '101' and content_id = 'classicquiz_204'", [due]);
    s.lms.state.quizzes.get(204)!.accessCode = null;
    const ctx = await createContext({ config: s.app.config, logger: createLogger('silent'), db: s.app.db });
    expect((await createPreExamSweep(ctx).run()).outcomes).toMatchObject({ alerted: 1 });

    tool = await s.launch();
    const panel = tool.getByRole('region', { name: 'Drift before the start' });
    await s.visible(panel, PAGE_TIMEOUT_MS);
    await s.visible(panel.getByText(LAB));
    await s.visible(panel.getByText('Not repaired automatically; repair it now.'));
    expect(s.lms.state.quizzes.get(204)!.accessCode).toBeNull();
    await s.screenshot('06-dashboard-drift');
    expect(await s.accessibilityViolations()).toEqual([]);
    expect(s.problems).toEqual([]);
  });
});
