import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapOf, Browser, createHarness, ISSUER, launchAs, type Harness } from '../lti/launch-harness.js';
import { proveSeedContexts } from '../support/oauth-testbed.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
  await proveSeedContexts(h.lms, h.t.db.orm, ISSUER);
});
afterAll(() => h.close());

/** The config grant as the required-browser page's script sends it, with the browser's session cookie. */
function postGrant(browser: Browser, contentId: string, actionToken: unknown) {
  return h.t.app.inject({
    method: 'POST',
    url: `/api/exb/config-grant/101/${contentId}`,
    headers: { cookie: browser.header(), 'sec-fetch-site': 'same-origin' },
    payload: { actionToken },
  });
}

describe('config-grant action tokens in the launch shells', () => {
  it('the exb-required view after a launch carries an action token bound to the new session', async () => {
    h.requirement.required = true;
    const browser = new Browser();
    const { response } = await launchAs(h, browser, { person: 'student1', placement: 'assessment', contentId: 'classicquiz_201' });
    const data = bootstrapOf(response.body);
    expect(data).toMatchObject({ view: 'exb-required', actionToken: expect.stringMatching(/^v1\.config-grant\./) });
    // Accepted (this database has no setting, hence 404 rather than an action-token refusal).
    const accepted = await postGrant(browser, 'classicquiz_201', data.actionToken);
    expect(accepted.statusCode).toBe(404);
    // A new launch replaces the session: the old page's token is worthless in it.
    await launchAs(h, browser, { person: 'student1', placement: 'assessment', contentId: 'classicquiz_201' });
    const stale = await postGrant(browser, 'classicquiz_201', data.actionToken);
    expect(stale.statusCode).toBe(403);
    expect(stale.json()).toMatchObject({ error_code: 'INVALID_ACTION_TOKEN' });
  });

  it('the student view carries one too', async () => {
    h.requirement.required = false;
    const browser = new Browser();
    const { response } = await launchAs(h, browser, { person: 'student1', placement: 'course_navigation' });
    const data = bootstrapOf(response.body);
    expect(data).toMatchObject({ view: 'student', actionToken: expect.stringMatching(/^v1\.config-grant\./) });
    expect((await postGrant(browser, 'classicquiz_201', data.actionToken)).statusCode).toBe(404);
  });
});
