import { SETUP_CHECK_PROOF_ROUTE, SETUP_CHECK_QUIT_ROUTE, SETUP_CHECK_ROUTE } from '@exb/shared/service-paths.js';
import type { CertificateStore, CertificateUnavailableReason } from '../exb/certificate-store.js';
import { computeConfigKey, configKeyHashMatches } from '../exb/config-key.js';
import { writeContainer } from '../exb/container.js';
import { sha256 } from '../exb/hash.js';
import { EXB_CONFIG_FILE, SEB_CONFIG_FILE, type ConfigFileType } from '../exb/config-file-type.js';
import { toExbLaunchUrl } from '../exb/launch-url.js';
import { writePlist, type PlistDict } from '../exb/plist.js';
import { buildExamSettings } from '../exb/settings.js';

/**
 * The setup check lets a student confirm, before any exam, that their exam browser opens this service's configurations
 * and reports the Config Key. Its configuration starts at the check page, can be quit without a password, and carries
 * nothing that could redeem an access code: its quit URL is the check's own quit page and the proof answers only
 * whether the two checks passed.
 */

export const SETUP_CHECK_PATH = SETUP_CHECK_ROUTE.path;
export const SETUP_CHECK_QUIT_PATH = SETUP_CHECK_QUIT_ROUTE.path;
export const SETUP_CHECK_PROOF_PATH = SETUP_CHECK_PROOF_ROUTE.path;

/**
 * The setup check's download under each name it is served as: the contract's `.exb` and Safe Exam Browser's `.seb`
 * (`exb/config-file-type.ts`). The page's links lead to the `.seb` one.
 */
export const SETUP_CHECK_CONFIG_FILES: readonly SetupCheckConfigFile[] = [EXB_CONFIG_FILE, SEB_CONFIG_FILE].map(setupCheckFile);
const SETUP_CHECK_LINKED_PATH = setupCheckFile(SEB_CONFIG_FILE).path;

export interface SetupCheckConfigFile {
  path: string;
  fileName: string;
  type: ConfigFileType;
}

function setupCheckFile(type: ConfigFileType): SetupCheckConfigFile {
  return { path: `/exb/check/config${type.extension}`, fileName: `exb-setup-check${type.extension}`, type };
}

export interface SetupCheckOptions {
  baseUrl: string;
  lmsOrigin: string;
  certificates: CertificateStore;
}

export type SetupCheckConfiguration =
  | { available: true; bytes: Buffer }
  | { available: false; reason: CertificateUnavailableReason };

export interface SetupCheckResult {
  configKey: boolean;
  expectedUrl: boolean;
}

export class SetupCheck {
  readonly pageUrl: string;
  readonly configUrl: string;
  readonly quitUrl: string;
  readonly launchUrl: string;
  readonly settings: PlistDict;
  readonly configKey: string;
  private readonly xml: Buffer;
  private readonly certificates: CertificateStore;
  private cached: { publicKeyHash: string | undefined; bytes: Buffer } | undefined;

  constructor(options: SetupCheckOptions) {
    this.certificates = options.certificates;
    this.pageUrl = new URL(SETUP_CHECK_PATH, options.baseUrl).href;
    this.configUrl = new URL(SETUP_CHECK_LINKED_PATH, options.baseUrl).href;
    this.quitUrl = new URL(SETUP_CHECK_QUIT_PATH, options.baseUrl).href;
    this.launchUrl = toExbLaunchUrl(this.configUrl);
    this.settings = buildExamSettings({
      startUrl: this.pageUrl,
      lmsOrigin: options.lmsOrigin,
      serviceOrigin: new URL(options.baseUrl).origin,
      // Derived from the base URL rather than random, so every instance behind a load balancer serves the same
      // dictionary and a download from one instance proves at another. The check releases nothing, so the salt
      // needs no secrecy.
      examKeySalt: new Uint8Array(sha256(`exam-enforcement/exb-setup-check/${options.baseUrl}`)),
      exitPassword: null,
      quitUrl: this.quitUrl,
      allowQuit: true,
    });
    this.configKey = computeConfigKey(this.settings);
    this.xml = writePlist(this.settings);
  }

  /**
   * The file bytes, encrypted once per process and certificate. Readiness is asked on every call, so cached bytes are
   * never served once the certificate has stopped being usable.
   */
  configuration(now = Date.now()): SetupCheckConfiguration {
    const reason = this.certificates.unavailableReason(now);
    if (reason !== undefined && reason !== 'encryption-disabled') return { available: false, reason };
    const certificate = reason === undefined ? this.certificates.loaded : undefined;
    if (this.cached === undefined || this.cached.publicKeyHash !== certificate?.publicKeyHash) {
      this.cached = {
        publicKeyHash: certificate?.publicKeyHash,
        bytes: writeContainer(this.xml, certificate === undefined ? {} : { certificate }),
      };
    }
    return { available: true, bytes: this.cached.bytes };
  }

  /** Both checks are always computed, so the page can show which one failed. */
  check(configKeyHash: string, url: string): SetupCheckResult {
    return {
      configKey: configKeyHashMatches(configKeyHash, url, this.configKey),
      expectedUrl: withoutFragment(url) === this.pageUrl,
    };
  }
}

function withoutFragment(url: string): string {
  const hash = url.indexOf('#');
  return hash < 0 ? url : url.slice(0, hash);
}
