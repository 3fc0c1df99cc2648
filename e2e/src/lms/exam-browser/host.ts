import { randomBytes } from 'node:crypto';
import {
  ConfigurationDownloadError,
  downloadConfiguration,
  fetchUrlFor,
  isRegisteredLaunchUrl,
  openConfiguration,
  SimulatedExamBrowser,
  type OpenedConfiguration,
} from '../../exb-simulator/index.js';

/** Where the development LMS serves its simulated exam browser. */
export const EXAM_BROWSER_PATH = '/testbed/exam-browser';

/** The certificate configurations are encrypted for, with its private key (the service's development pair). */
export interface ExamBrowserIdentity {
  certificatePem: string;
  privateKeyPem: string;
}

/** One opened configuration: what the simulated browser window shows. */
export interface ExamBrowserSession {
  id: string;
  opened: OpenedConfiguration;
  browser: SimulatedExamBrowser;
  /** The http(s) URL the configuration was downloaded from. */
  downloadUrl: string;
}

export type OpenOutcome = { ok: true; session: ExamBrowserSession } | { ok: false; status: number; problem: string };

/** Opened configurations are kept for reloads of their window; the oldest go first. */
const MAX_SESSIONS = 50;

/**
 * The testbed's stand-in for the exam browser, on the development LMS: it downloads a configuration as the real browser
 * does (the simulator's download), decrypts it with the development certificate's key and keeps it, so a window of the
 * LMS can show its start page with the page API. Off until the development launcher enables it; only downloads from
 * the tool's own origin are made.
 */
export class ExamBrowserHost {
  private identity: ExamBrowserIdentity | undefined;
  private on = false;
  private readonly sessions = new Map<string, ExamBrowserSession>();

  constructor(private readonly toolBaseUrl: string) {}

  get enabled(): boolean {
    return this.on;
  }

  /** Turns the simulated exam browser on; without `identity` it can only open unencrypted configurations. */
  enable(identity?: ExamBrowserIdentity): void {
    this.on = true;
    this.identity = identity;
  }

  session(id: string): ExamBrowserSession | undefined {
    return this.sessions.get(id);
  }

  /** Forgets opened configurations (the LMS's reset); whether it is enabled stays as configured. */
  clear(): void {
    this.sessions.clear();
  }

  async open(launchUrl: string): Promise<OpenOutcome> {
    // Only what the operating system would hand the exam browser: a link of a scheme it registers (`seb://`,
    // `sebs://`; `exb-simulator/schemes.ts`). An `exbs://` link, or a plain web address, starts nothing on a computer.
    let downloadUrl: URL;
    try {
      if (!isRegisteredLaunchUrl(launchUrl)) throw new Error('not a registered scheme');
      downloadUrl = new URL(fetchUrlFor(launchUrl));
    } catch {
      return {
        ok: false,
        status: 400,
        problem: 'The link is not an exam-browser launch URL: the exam browser opens only seb:// and sebs:// links.',
      };
    }
    // The host fetches what it is given: only the tool's configuration downloads, never an address of the visitor's choosing.
    if (downloadUrl.origin !== new URL(this.toolBaseUrl).origin || !downloadUrl.pathname.startsWith('/exb/')) {
      return { ok: false, status: 400, problem: 'The link does not lead to a configuration of the exam service.' };
    }

    let bytes: Buffer;
    try {
      bytes = (await downloadConfiguration(launchUrl)).bytes;
    } catch (error) {
      if (!(error instanceof ConfigurationDownloadError)) {
        return { ok: false, status: 502, problem: `The exam service could not be reached (${(error as Error).message}).` };
      }
      const spent = error.status === 403;
      return {
        ok: false,
        status: spent ? 410 : 502,
        problem: spent
          ? 'The exam service refused the download: a configuration link works once and for two minutes. Download the configuration again from the course.'
          : `The exam service did not hand out the configuration (${error.message}).`,
      };
    }

    let opened: OpenedConfiguration;
    try {
      opened = openConfiguration(bytes, this.identity ?? {});
    } catch (error) {
      return {
        ok: false,
        status: 422,
        problem:
          this.identity === undefined
            ? 'The configuration is encrypted for a certificate whose private key the testbed does not have (EXB_CONFIG_CERTIFICATE is set). Only the development certificate, generated into DATA_DIR/secrets, can be opened here.'
            : `The configuration could not be opened: ${(error as Error).message}`,
      };
    }
    if (opened.startUrl === undefined) return { ok: false, status: 422, problem: 'The configuration has no start URL.' };

    const session: ExamBrowserSession = {
      id: randomBytes(16).toString('base64url'),
      opened,
      browser: SimulatedExamBrowser.fromConfiguration(opened),
      downloadUrl: downloadUrl.href,
    };
    this.sessions.set(session.id, session);
    for (const id of this.sessions.keys()) {
      if (this.sessions.size <= MAX_SESSIONS) break;
      this.sessions.delete(id);
    }
    return { ok: true, session };
  }
}
