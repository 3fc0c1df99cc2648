import Fastify from 'fastify';
import { TESTBED_QUIT_NOTICE_ROUTE } from '@exb/shared/service-paths.js';
import { describe, expect, it } from 'vitest';
import { registerTestbedQuitNotice, testbedQuitNoticeHead } from '../../src/pages/testbed-quit-notice.js';

const TESTBED = { testbedExamBrowserUrl: 'http://localhost:3001/testbed/exam-browser' };

describe('the quit URL page’s notice to the testbed’s simulated exam browser', () => {
  it('tells only the development LMS’s window, and only when it frames the page', async () => {
    const app = Fastify();
    await registerTestbedQuitNotice(app, TESTBED);
    const script = await app.inject({ method: 'GET', url: TESTBED_QUIT_NOTICE_ROUTE.path });
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.body).toContain('if (window.parent === window) return;');
    expect(script.body).toContain(`postMessage({ type: 'exb-quit-url-reached', url: location.href }, "http://localhost:3001")`);
    expect(testbedQuitNoticeHead(TESTBED)).toBe(`<script src="${TESTBED_QUIT_NOTICE_ROUTE.path}" defer></script>`);
    await app.close();
  });

  it('is neither served nor loaded without the testbed', async () => {
    const app = Fastify();
    await registerTestbedQuitNotice(app, { testbedExamBrowserUrl: undefined });
    expect((await app.inject({ method: 'GET', url: TESTBED_QUIT_NOTICE_ROUTE.path })).statusCode).toBe(404);
    expect(testbedQuitNoticeHead({ testbedExamBrowserUrl: undefined })).toBe('');
    await app.close();
  });
});
