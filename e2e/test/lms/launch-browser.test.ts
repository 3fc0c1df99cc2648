import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMockLms, LTI_CLAIM, type MockLms, type RunningLmsServer } from '../../src/lms/index.js';
import { browserAvailable, launchBrowser, type LaunchedBrowser } from '../../src/support/browser.js';

interface Received {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  params: Record<string, string>;
}

/** Stands in for the service: records the LTI requests and plays the tool's part of the OIDC flow. */
class ToolStandIn {
  readonly received: Received[] = [];
  private server!: Server;
  url = '';
  lmsUrl = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', this.url);
        const params = Object.fromEntries(req.method === 'POST' ? new URLSearchParams(body) : url.searchParams);
        this.received.push({ method: req.method ?? '', path: url.pathname, headers: req.headers, params });
        if (url.pathname === '/lti/login') {
          const auth = new URLSearchParams({
            scope: 'openid',
            response_type: 'id_token',
            response_mode: 'form_post',
            prompt: 'none',
            client_id: params.client_id ?? '',
            redirect_uri: `${this.url}/lti/launch`,
            login_hint: params.login_hint ?? '',
            lti_message_hint: params.lti_message_hint ?? '',
            nonce: 'browser-nonce',
            state: 'browser-state',
          });
          res.writeHead(302, { location: `${this.lmsUrl}/api/lti/authorize_redirect?${auth}` }).end();
        } else if (url.pathname === '/js/lms-exb-theme-loader.js') {
          res.writeHead(200, { 'content-type': 'application/javascript' }).end('window.__themeLoaded = location.pathname;');
        } else {
          res.writeHead(200, { 'content-type': 'text/html' }).end('<!DOCTYPE html><h1 id="tool">tool reached</h1>');
        }
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  find(path: string): Received | undefined {
    return this.received.find((entry) => entry.path === path);
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}

describe.runIf(browserAvailable())('development LMS in Chromium', () => {
  const tool = new ToolStandIn();
  let lms: MockLms;
  let lmsServer: RunningLmsServer;
  let browser: LaunchedBrowser;

  beforeAll(async () => {
    await tool.start();
    lms = createMockLms({
      baseUrl: 'http://127.0.0.1:0',
      tool: {
        baseUrl: tool.url,
        clientId: '10000000000001',
        deploymentId: '1:8865aa05b4b79b64a91a86042e43af5ea8ae79eb',
        oauthClientId: '10000000000002',
        oauthClientSecret: 'secret',
        themeJavaScriptUrl: `${tool.url}/js/lms-exb-theme-loader.js`,
      },
    });
    lmsServer = await lms.startHttpServer({ port: 0 });
    tool.lmsUrl = lmsServer.url;
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await lmsServer?.close();
    await tool.close();
  });
  beforeEach(() => {
    tool.received.length = 0;
  });

  it('launches as instructor from the launch page into a real login initiation at the tool', async () => {
    const page = await browser.context.newPage();
    await page.goto(lms.launchPageUrl);
    await page.getByRole('button', { name: 'Launch as instructor', exact: true }).click();

    await expect.poll(() => tool.find('/lti/login'), { timeout: 10_000 }).toBeDefined();
    const login = tool.find('/lti/login')!;
    expect(login.method).toBe('POST');
    expect(login.headers['content-type']).toBe('application/x-www-form-urlencoded');
    // The LMS posts into its tool frame, as the real one does.
    expect(login.headers['sec-fetch-dest']).toBe('iframe');
    expect(login.params).toEqual({
      iss: 'https://canvas.instructure.com',
      login_hint: lms.platform.loginHintFor(2),
      client_id: '10000000000001',
      lti_deployment_id: '1:8865aa05b4b79b64a91a86042e43af5ea8ae79eb',
      target_link_uri: `${tool.url}/lti/launch`,
      lti_message_hint: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      canvas_environment: 'prod',
      canvas_region: 'not_configured',
      lti_storage_target: 'post_message_forwarding',
    });

    // The stand-in continues the flow; the LMS recognises the browser's session and posts the id_token back.
    await expect.poll(() => tool.find('/lti/launch'), { timeout: 10_000 }).toBeDefined();
    const launch = tool.find('/lti/launch')!;
    expect(launch.method).toBe('POST');
    expect(launch.params.state).toBe('browser-state');
    const { payload } = await jwtVerify(launch.params.id_token!, createRemoteJWKSet(new URL(`${lms.baseUrl}/api/lti/security/jwks`)), {
      issuer: 'https://canvas.instructure.com',
      audience: '10000000000001',
    });
    expect(payload.nonce).toBe('browser-nonce');
    expect(payload[`${LTI_CLAIM}custom`]).toMatchObject({ lms_user_id: '2', exb_launch_surface: 'course', lms_course_id: '101' });
    await expect.poll(() => page.frameLocator('#tool_content').locator('#tool').textContent()).toBe('tool reached');
    await page.close();
  });

  it('prompts for a classic quiz access code with the theme script loaded, and opens the quiz on the right code', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${lms.baseUrl}/login?return_to=${encodeURIComponent('/courses/101/quizzes/204')}`);
    await page.getByRole('button', { name: 'Log in as Sam Student' }).click();
    await page.locator('#take_quiz_link').click();

    await expect.poll(() => page.locator('form.access_code_form').count()).toBe(1);
    expect(new URL(page.url()).pathname).toBe('/courses/101/quizzes/204/take');
    await expect.poll(() => page.evaluate(() => (window as unknown as { __themeLoaded?: string }).__themeLoaded)).toBe(
      '/courses/101/quizzes/204/take',
    );

    await page.locator('input#quiz_access_code[name="access_code"]').fill('wrong');
    await page.getByRole('button', { name: 'Submit' }).click();
    await expect.poll(() => page.locator('form.access_code_form').count()).toBe(1);

    // As the detector does: fill the field and submit the form programmatically (the CSRF field travels with it).
    await page.locator('#quiz_access_code').fill('lab-2026');
    await page.evaluate(() => (document.querySelector('form.access_code_form') as HTMLFormElement).submit());
    await expect.poll(() => page.locator('#submit_quiz_form').count()).toBe(1);
    await page.close();
  });
});
