import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

// Chromium must not reach for the network on its own: this machine's network is closed and the attempts slow it down.
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

/**
 * Browser tests need Debian's Chromium. Without it they are skipped with a visible notice, except in CI, where a
 * missing browser must fail the run instead of passing silently.
 */
export function browserAvailable(): boolean {
  if (existsSync(CHROMIUM_PATH)) return true;
  if (process.env.CI) throw new Error(`Chromium is required in CI but ${CHROMIUM_PATH} does not exist (apt-get install chromium)`);
  process.stderr.write(`\n[notice] browser tests skipped: ${CHROMIUM_PATH} not found (apt-get install chromium)\n`);
  return false;
}

export interface LaunchedBrowser {
  browser: Browser;
  context: BrowserContext;
  close(): Promise<void>;
}

/**
 * Chromium's switch that blocks third-party cookies as its phase-out does: a cookie a cross-site frame sets is not
 * stored, unless it is `Partitioned` (CHIPS).
 */
export const BLOCK_THIRD_PARTY_COOKIES_ARGS = ['--test-third-party-cookie-phaseout'];

/** A fresh headless Chromium; Playwright gives every launch its own empty temporary profile. */
export async function launchBrowser(options: { extraArgs?: readonly string[] } = {}): Promise<LaunchedBrowser> {
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS, ...(options.extraArgs ?? [])] });
  const context = await browser.newContext();
  return {
    browser,
    context,
    async close() {
      await context.close();
      await browser.close();
    },
  };
}
