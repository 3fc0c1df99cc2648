import { createHmac } from 'node:crypto';
import { parseContentId } from '@exb/shared/content-id.js';
import type { CertificateStore } from '../../exb/certificate-store.js';
import { writeContainer } from '../../exb/container.js';
import { lmsAssessmentUrl } from '../../lms/pages.js';
import { rncryptorPrepareKeys, type RncryptorKeys } from '../../exb/rncryptor.js';
import { prepareExamSettings, type PreparedExamSettings } from '../../exb/settings.js';
import { serializeSettings, type SerializedSettings } from '../../exb/string-hole-template.js';
import type { Clock } from '../../clock.js';
import { deriveExamBrowserKey } from '../../security/exam-browser-keys.js';
import type { ExamPolicy } from './exam-policy.js';

/**
 * Exam-browser configurations of assessments. Everything that depends only on the settings fingerprint is computed
 * once per fingerprint and kept in a bounded in-process cache: the validated policy, the exam key salt, the keys
 * derived from the start password, and the whole deterministic configuration (start URL = the assessment page) with
 * its Config Key, and the template a student's configuration is filled into. A download then costs its session URL
 * filled into that template (when it carries one) and the encryption with a fresh IV and fresh RSA padding.
 *
 * The fingerprint covers every input of the dictionary (see `settings/fingerprint.ts`), so an entry can never be
 * served for settings it was not built from. Salts are derived from the fingerprint with a server key, so every
 * instance builds the same deterministic configuration and the same Config Key, and nobody without the key can. That
 * key proves only where every download is deterministic (no session handoff); otherwise each download starts at a URL
 * of its own, and only its stored key proves (`config-grants.ts`).
 */

export type ConfigurationUnavailableReason = 'certificate' | 'policy';

export class ConfigurationUnavailableError extends Error {
  override name = 'ConfigurationUnavailableError';

  constructor(
    readonly reason: ConfigurationUnavailableReason,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

export interface BuiltConfiguration {
  readonly bytes: Buffer;
  readonly configKey: string;
  /** The Config Key is this download's own (it starts at a URL of its own) and must be stored for the proof. */
  readonly perDownload: boolean;
}

/** The query parameter that makes the start URL of a download without a session its own (see `ownAssessmentUrl`). */
const DOWNLOAD_MARK_PARAMETER = 'exb_download';

export interface ConfigurationOptions {
  readonly baseUrl: string;
  readonly lmsUrl: string;
  readonly certificates: CertificateStore;
  readonly additionalAllowedHosts: readonly string[];
  readonly appSecret: Buffer;
  readonly clock: Clock;
  /** Fingerprints kept; a course with many assessments and a few policy changes fits many times over. */
  readonly cacheSize?: number;
}

interface FingerprintEntry {
  readonly serialize: (startUrl: string) => SerializedSettings;
  readonly deterministicXml: Buffer;
  readonly deterministicConfigKey: string;
  readonly passwordKeys: RncryptorKeys | undefined;
}

const DEFAULT_CACHE_SIZE = 2000;

export class ExamConfigurations {
  private readonly cache = new Map<string, FingerprintEntry>();
  private readonly saltKey: Buffer;
  private readonly passwordSaltKey: Buffer;
  private readonly cacheSize: number;

  constructor(private readonly options: ConfigurationOptions) {
    this.saltKey = deriveExamBrowserKey(options.appSecret, 'exam-key-salt');
    this.passwordSaltKey = deriveExamBrowserKey(options.appSecret, 'start-password-salt');
    this.cacheSize = options.cacheSize ?? DEFAULT_CACHE_SIZE;
  }

  /** The assessment page: where a configuration without a session URL starts, and where a session URL returns to. */
  assessmentUrl(policy: Pick<ExamPolicy, 'courseId' | 'contentId'>): string {
    const content = parseContentId(policy.contentId);
    if (content === null) throw new RangeError('not a content id');
    return lmsAssessmentUrl(this.options.lmsUrl, policy.courseId, content);
  }

  /**
   * The assessment page marked with a download's own random value, the start of a configuration that carries no session
   * URL but still needs a Config Key of its own (an instructor's download while students get session handoffs). The LMS
   * ignores the parameter; it only changes the dictionary, and so the Config Key.
   */
  ownAssessmentUrl(policy: Pick<ExamPolicy, 'courseId' | 'contentId'>, mark: string): string {
    const url = new URL(this.assessmentUrl(policy));
    url.searchParams.set(DOWNLOAD_MARK_PARAMETER, mark);
    return url.href;
  }

  /** The Config Key of the configuration without a session URL for the policy's current fingerprint. */
  deterministicConfigKey(policy: ExamPolicy): string {
    return this.entry(policy).deterministicConfigKey;
  }

  /**
   * The configuration starting at `startUrl` (a session start or {@link ownAssessmentUrl}), or with null the
   * deterministic one. Throws {@link ConfigurationUnavailableError} when the policy cannot be written or the
   * certificate is not usable.
   */
  build(policy: ExamPolicy, startUrl: string | null): BuiltConfiguration {
    const certificate = this.certificate();
    const entry = this.entry(policy);
    let xml = entry.deterministicXml;
    let configKey = entry.deterministicConfigKey;
    if (startUrl !== null) {
      try {
        ({ xml, configKey } = entry.serialize(startUrl));
      } catch (cause) {
        throw new ConfigurationUnavailableError('policy', 'the start URL cannot start a configuration', { cause });
      }
    }
    const bytes = writeContainer(xml, {
      ...(entry.passwordKeys === undefined ? {} : { passwordKeys: entry.passwordKeys }),
      ...(certificate === undefined ? {} : { certificate }),
    });
    return { bytes, configKey, perDownload: startUrl !== null };
  }

  /**
   * Whether files can be encrypted now. With `EXB_CONFIG_ENCRYPTION_ENABLED=false` there is no certificate layer and the
   * `plnd` (or, with a start password, `pswd`) block is served as it is.
   */
  certificateReady(): boolean {
    const reason = this.options.certificates.unavailableReason(this.options.clock());
    return reason === undefined || reason === 'encryption-disabled';
  }

  private certificate() {
    const reason = this.options.certificates.unavailableReason(this.options.clock());
    if (reason === 'encryption-disabled') return undefined;
    if (reason !== undefined) {
      throw new ConfigurationUnavailableError('certificate', `the configuration encryption certificate is not usable (${reason})`);
    }
    return this.options.certificates.loaded;
  }

  private entry(policy: ExamPolicy): FingerprintEntry {
    const cached = this.cache.get(policy.fingerprint);
    if (cached !== undefined) return cached;
    const entry = this.createEntry(policy);
    if (this.cache.size >= this.cacheSize) {
      const oldest = this.cache.keys().next();
      if (!oldest.done) this.cache.delete(oldest.value);
    }
    this.cache.set(policy.fingerprint, entry);
    return entry;
  }

  private createEntry(policy: ExamPolicy): FingerprintEntry {
    const { effective } = policy;
    let prepared: PreparedExamSettings;
    let deterministic: SerializedSettings;
    try {
      prepared = prepareExamSettings({
        startUrl: this.assessmentUrl(policy),
        lmsOrigin: new URL(this.options.lmsUrl).origin,
        serviceOrigin: new URL(this.options.baseUrl).origin,
        allowedHosts: this.options.additionalAllowedHosts,
        tools: effective.tools,
        urlRules: effective.urlRules,
        examKeySalt: new Uint8Array(this.derived(this.saltKey, policy.fingerprint, 32)),
        exitPassword: effective.exitPassword.value,
        quitUrl: policy.quitUrl,
      });
      deterministic = serializeSettings(prepared.build(this.assessmentUrl(policy)));
    } catch (cause) {
      throw new ConfigurationUnavailableError('policy', 'the assessment policy cannot be written as a configuration', { cause });
    }
    const startPassword = effective.startPassword.value;
    let passwordKeys: RncryptorKeys | undefined;
    if (startPassword !== null) {
      if (!/^[\x20-\x7e]+$/.test(startPassword)) {
        throw new ConfigurationUnavailableError('policy', 'the start password is not printable ASCII');
      }
      const salts = this.derived(this.passwordSaltKey, policy.fingerprint, 16);
      passwordKeys = rncryptorPrepareKeys(startPassword, { encryptionSalt: salts.subarray(0, 8), hmacSalt: salts.subarray(8, 16) });
    }
    return {
      serialize: (startUrl) => prepared.serialize(startUrl),
      deterministicXml: deterministic.xml,
      deterministicConfigKey: deterministic.configKey,
      passwordKeys,
    };
  }

  private derived(key: Buffer, fingerprint: string, length: number): Buffer {
    return createHmac('sha256', key).update(fingerprint, 'utf8').digest().subarray(0, length);
  }
}
