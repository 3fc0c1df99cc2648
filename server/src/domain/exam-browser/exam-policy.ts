import type { Pool } from 'pg';
import type { Logger } from 'pino';
import { resolveEffectiveSettings, type EffectiveSettings } from '../settings/effective-settings.js';
import { settingsFingerprint } from '../settings/fingerprint.js';
import { SettingsUnreadableError, type SettingsCodec, type SettingsRow } from '../settings/settings-codec.js';
import { loadSettingsText } from '../settings/settings-repository.js';
import { settingsRowFromText } from '../settings/settings-text.js';
import { settingsGeneration } from '../settings/settings-generation.js';
import type { QuitTokens } from './quit-token.js';

/**
 * The settings of one assessment as the student routes see them. The rows are read by the settings' own joined loader
 * (or beside a token, through the same columns and join) and decoded by the settings codec, so instructors and students
 * can never disagree about a setting; a setting that cannot be decoded is "unreadable", never enforced or released.
 */

/** One assessment's setting, resolved for the student flow. */
export interface ExamPolicy {
  readonly courseId: string;
  readonly contentId: string;
  readonly exbRequired: boolean;
  readonly enabled: boolean;
  readonly accessCode: string | null;
  readonly effective: EffectiveSettings;
  /** The configuration-bound quit URL for the current access code; `null` without one. */
  readonly quitUrl: string | null;
  readonly fingerprint: string;
  /**
   * Enforcement is fully active: enabled and required, an access code to release and an effective exit password. Only
   * then is the exam browser required, a configuration served, a proof accepted and a code released.
   */
  readonly active: boolean;
}

export interface PolicyContext {
  readonly baseUrl: string;
  readonly lmsUrl: string;
  readonly managedExitPassword: string | null | undefined;
  /** Hosts every configuration allows besides the LMS and the service (sign-in providers). */
  readonly additionalAllowedHosts: readonly string[];
  readonly quitTokens: QuitTokens;
}

/** What a student path learns about an assessment's setting. */
export type PolicyRead = ExamPolicy | 'absent' | 'unreadable';

/** The policy when it is fully active (see {@link ExamPolicy.active}), else `null`. */
export function activePolicy(read: PolicyRead): ExamPolicy | null {
  return typeof read === 'object' && read.active ? read : null;
}

/** Assessments whose recent policy a process keeps for {@link PolicyReader.loadRecent}. */
const RECENT_MAX = 20_000;
/** Decoded settings rows a process keeps; a rollout's worth of assessments, each with a few versions. */
const DECODED_MAX = 5_000;

/**
 * How old a policy may be for {@link PolicyReader.loadRecent}: at an exam's start a class proves and asks for grants
 * on one quiz within seconds, and a second-old read answers all but the first of them without a query.
 */
export const RECENT_POLICY_MAX_AGE_MS = 1_000;

export class PolicyReader {
  private readonly recent = new Map<string, { read: PolicyRead; until: number; generation: number }>();
  /**
   * Policies by the exact text of the row they were decoded from: every student request reads the row afresh,
   * but a row seen before is not opened, parsed and fingerprinted again. A changed row has another key.
   */
  private readonly decoded = new Map<string, ExamPolicy>();

  constructor(
    private readonly pool: Pool,
    private readonly codec: SettingsCodec,
    private readonly context: PolicyContext,
    private readonly logger: Pick<Logger, 'warn'>,
  ) {}

  /** The current policy of one assessment, in one primary-key lookup. */
  async load(courseId: string, contentId: string): Promise<PolicyRead> {
    return this.read(await loadSettingsText(this.pool, courseId, contentId));
  }

  /**
   * The policy as read at most `maxAgeMs` ago by this process and not older than its last settings write
   * (`settings/settings-generation.ts`); otherwise {@link load}. Only for answers a later statement checks against the
   * current setting anyway (a proof's token is bound to the fingerprint, which the redemption compares).
   */
  async loadRecent(courseId: string, contentId: string, maxAgeMs: number): Promise<PolicyRead> {
    const key = `${courseId}/${contentId}`;
    const now = Date.now();
    const generation = settingsGeneration();
    const kept = this.recent.get(key);
    if (kept !== undefined && kept.until > now && kept.generation === generation) return kept.read;
    const read = await this.load(courseId, contentId);
    if (this.recent.size >= RECENT_MAX) this.recent.clear();
    this.recent.set(key, { read, until: now + maxAgeMs, generation });
    return read;
  }

  /** The policy in settings selected as one text (`SETTINGS_TEXT_COLUMN`); an unreadable setting is logged here, once. */
  read(settings: string): PolicyRead {
    const known = this.decoded.get(settings);
    if (known !== undefined) return known;
    const row = settingsRowFromText(settings);
    try {
      const policy = this.resolve(row);
      if (policy === null) return 'absent';
      if (this.decoded.size >= DECODED_MAX) this.decoded.delete(this.decoded.keys().next().value!);
      this.decoded.set(settings, policy);
      return policy;
    } catch (error) {
      if (!(error instanceof SettingsUnreadableError)) throw error;
      this.logger.warn(
        { err: error, courseId: row.s_course_id, contentId: row.s_content_id },
        'assessment setting is unreadable; it is neither enforced nor released',
      );
      return 'unreadable';
    }
  }

  private resolve(row: SettingsRow): ExamPolicy | null {
    const assessment = this.codec.assessment(row);
    if (assessment === null) return null;
    const courseDefaults = this.codec.courseDefaults(row);
    const effective = resolveEffectiveSettings({
      assessment,
      courseDefaults,
      managedExitPassword: this.context.managedExitPassword,
    });
    const { courseId, contentId, accessCode } = assessment;
    const quitUrl =
      accessCode === null ? null : this.context.quitTokens.quitUrl(this.context.baseUrl, courseId, contentId, accessCode);
    const fingerprint = settingsFingerprint(effective, {
      lmsOrigin: this.context.lmsUrl,
      serviceOrigin: this.context.baseUrl,
      quitUrl,
      additionalAllowedHosts: this.context.additionalAllowedHosts,
    });
    return {
      courseId,
      contentId,
      exbRequired: assessment.exbRequired,
      enabled: assessment.enabled,
      accessCode,
      effective,
      quitUrl,
      fingerprint,
      active: assessment.enabled && assessment.exbRequired && accessCode !== null && effective.exitPassword.value !== null,
    };
  }
}
