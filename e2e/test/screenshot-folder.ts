import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Where a browser test writes its screenshots, and whether they outlive the test. */
export interface ScreenshotFolder {
  readonly path: string;
  /** Removes a temporary folder; a folder the environment named is kept, to be looked at. */
  remove(): void;
}

/**
 * The folder the environment variable `variable` names, kept after the test; without it a temporary folder, removed
 * after the test, so that `npm test` leaves nothing behind in the system's temporary directory.
 */
export function screenshotFolder(variable: string, label: string): ScreenshotFolder {
  const asked = process.env[variable];
  if (asked) {
    mkdirSync(asked, { recursive: true });
    process.stderr.write(`\n[${label}] screenshots in ${asked}\n`);
    return { path: asked, remove: () => undefined };
  }
  const temporary = mkdtempSync(path.join(tmpdir(), `exb-${label}-`));
  return { path: temporary, remove: () => rmSync(temporary, { recursive: true, force: true }) };
}
