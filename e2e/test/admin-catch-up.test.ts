import type { Frame } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createSettingsRepository } from '../../server/src/domain/settings/settings-repository.js';
import { browserAvailable } from '../src/support/browser.js';
import { CATCH_UP_TIMEOUT_MS } from '../src/support/tool-frame.js';
import { useAdminSession } from './admin-session.js';

/**
 * The dashboard's catch-up: the summary only reads, and the dashboard itself asks for the one-time backfill of legacy
 * connections (`admin.catchUp`) when it opens, so a course an instructor set up before any administrator connected
 * courses appears in the list without the administrator doing anything.
 */
describe.runIf(browserAvailable())('the administrator dashboard’s catch-up in Chromium', { timeout: 120_000 }, () => {
  const s = useAdminSession({ name: 'admin-catch-up', screenshotsVariable: 'ADMIN_CATCH_UP_SCREENSHOTS' });
  let tool: Frame;

  it('lists a course instructors already manage once the dashboard opens', async () => {
    // Biology 101's instructor set the course's exit password before the school's administrators used the tool.
    await createSettingsRepository(s.app.db, s.app.config.secrets.appSecret).saveCourseDefaults('101', {
      courseId: '101',
      urlRules: [],
      externalTools: [],
      startPassword: null,
      exitPassword: 'legacy-exit-1',
      setupCompleted: true,
    });
    tool = await s.launch();
    await s.authorize(tool.getByRole('tab', { name: 'Connected courses' }));
    await s.visible(tool.getByRole('rowheader', { name: 'Biology 101' }), CATCH_UP_TIMEOUT_MS);
    const [row] = await s.app.db.orm.em.getConnection().execute<{ origin: string }[]>(`select origin from admin_course where course_id = '101'`);
    expect(row).toEqual({ origin: 'legacy' });
    await s.screenshot('01-legacy-course-listed');
    expect(s.problems).toEqual([]);
  });
});
