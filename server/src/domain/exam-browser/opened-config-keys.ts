import type { Pool } from 'pg';
import type { Clock } from '../../clock.js';
import { open, seal } from '../../security/aead.js';

/** Opened Config Keys kept per process: a few hundred per assessment in an exam window, a few megabytes in all. */
const OPENED_KEYS_MAX = 50_000;
/** How often an assessment's expired keys are dropped; until then a lookup skips them. */
const OPENED_KEYS_SWEEP_MS = 60_000;

interface OpenedConfigKey {
  /** The row's `config_key_seq`. */
  readonly seq: string;
  readonly configKey: string;
  /** Epoch milliseconds. */
  readonly expiresAt: number;
  /** When this process opened it, counted over all assessments: {@link OpenedConfigKeys.knownSince}. */
  readonly position: number;
}

/** The opened Config Keys of one assessment and fingerprint. */
interface AssessmentKeys {
  /** By the rows' `config_key_seq`, which the refresh query leaves out. */
  readonly bySeq: Map<string, OpenedConfigKey>;
  readonly byKey: Map<string, OpenedConfigKey>;
  /** Every entry of `bySeq` (and some expired ones until the next sweep), in the order they were opened. */
  inOrder: OpenedConfigKey[];
  /** When expired keys are next dropped, epoch milliseconds. */
  sweepAt: number;
}

/**
 * The Config Keys of per-download configurations: sealed into their config grant's row of `exb_student_token` (bound
 * to the row's id, course, content and fingerprint) when the grant is spent, and opened at most once per process. A
 * proof tries the keys this process has opened first (only those opened since its last look), and reads the others only
 * when none of those matches.
 */
export class OpenedConfigKeys {
  /** Opened keys by assessment and fingerprint. Stored keys never change. */
  private readonly opened = new Map<string, AssessmentKeys>();
  private openedCount = 0;
  private position = 0;

  constructor(
    private readonly pool: Pool,
    private readonly sealingKey: Buffer,
    private readonly clock: Clock,
  ) {}

  /** The sealed form of `configKey`, as the grant's row `id` keeps it. */
  seal(id: string, courseId: string, contentId: string, fingerprint: string, configKey: string): Buffer {
    return seal(this.sealingKey, Buffer.from(configKey, 'utf8'), configKeyBinding(id, courseId, contentId, fingerprint));
  }

  /**
   * Unexpired Config Keys of downloads of an assessment under `fingerprint` that this process has opened since
   * `position` (0: all of them), without a query, and the position to ask from next time. A proof hashes these once
   * and then only the ones opened since; only when none matches does it ask {@link refresh}.
   */
  knownSince(courseId: string, contentId: string, fingerprint: string, position: number): { keys: string[]; next: number } {
    const next = this.position;
    const known = this.opened.get(openedKeysKey(courseId, contentId, fingerprint));
    if (known === undefined || position >= next) return { keys: [], next };
    const now = this.clock();
    this.sweep(known, now);
    const { inOrder } = known;
    // Positions only grow, so the keys opened since `position` are a tail of `inOrder`.
    let first = inOrder.length;
    while (first > 0 && inOrder[first - 1]!.position >= position) first -= 1;
    const keys: string[] = [];
    for (let index = first; index < inOrder.length; index += 1) {
      const entry = inOrder[index]!;
      if (entry.expiresAt > now) keys.push(entry.configKey);
    }
    return { keys, next };
  }

  /** Whether this process has opened `configKey` for the assessment under `fingerprint` and it has not expired. */
  isKnown(courseId: string, contentId: string, fingerprint: string, configKey: string): boolean {
    const entry = this.opened.get(openedKeysKey(courseId, contentId, fingerprint))?.byKey.get(configKey);
    return entry !== undefined && entry.expiresAt > this.clock();
  }

  /** The row number (`config_key_seq`) of an opened key of the assessment under `fingerprint`; `null` when not opened here. */
  seqOf(courseId: string, contentId: string, fingerprint: string, configKey: string): string | null {
    return this.opened.get(openedKeysKey(courseId, contentId, fingerprint))?.byKey.get(configKey)?.seq ?? null;
  }

  /** How many Config Keys this process keeps for the assessment under `fingerprint`, expired ones not yet dropped included. */
  count(courseId: string, contentId: string, fingerprint: string): number {
    return this.opened.get(openedKeysKey(courseId, contentId, fingerprint))?.bySeq.size ?? 0;
  }

  /**
   * Reads and opens the unexpired Config Keys of an assessment and fingerprint this process has not opened yet (stored
   * by another instance, or since the last look), in one statement; returns only those.
   */
  async refresh(courseId: string, contentId: string, fingerprint: string): Promise<string[]> {
    const known = this.opened.get(openedKeysKey(courseId, contentId, fingerprint));
    const result = await this.pool.query<{ id: string; seq: string; sealed: Buffer; expires_at: Date }>({
      name: 'exb-student-refresh-config-keys',
      text: `select id, config_key_seq::text as seq, config_key_sealed as sealed, config_key_expires_at as expires_at
        from exb_student_token
        where course_id = $1 and content_id = $2 and fingerprint = $3 and config_key_sealed is not null
          and config_key_expires_at > $4 and not (config_key_seq = any($5::bigint[]))`,
      values: [courseId, contentId, fingerprint, new Date(this.clock()), known === undefined ? [] : [...known.bySeq.keys()]],
    });
    const added: string[] = [];
    for (const row of result.rows) {
      const plaintext = open(this.sealingKey, row.sealed, configKeyBinding(row.id, courseId, contentId, fingerprint));
      // A key that does not open was not written by this service for this row; it proves nothing.
      if (plaintext === null) continue;
      const configKey = plaintext.toString('utf8');
      this.remember(courseId, contentId, fingerprint, row.seq, configKey, new Date(row.expires_at).getTime());
      added.push(configKey);
    }
    return added;
  }

  /** Keeps a key this process stored or opened, so a proof arriving here needs no query for it. */
  remember(courseId: string, contentId: string, fingerprint: string, seq: string, configKey: string, expiresAt: number): void {
    const key = openedKeysKey(courseId, contentId, fingerprint);
    let known = this.opened.get(key);
    if (known === undefined) {
      // Whole assessments are dropped, oldest first, once the process keeps too many keys.
      while (this.openedCount >= OPENED_KEYS_MAX && this.opened.size > 0) {
        const [oldest, entries] = this.opened.entries().next().value!;
        this.openedCount -= entries.inOrder.length;
        this.opened.delete(oldest);
      }
      known = { bySeq: new Map(), byKey: new Map(), inOrder: [], sweepAt: this.clock() + OPENED_KEYS_SWEEP_MS };
      this.opened.set(key, known);
    }
    // A stored key never changes: one seen again (read back by a refresh) is already here.
    if (known.bySeq.has(seq)) return;
    const entry: OpenedConfigKey = { seq, configKey, expiresAt, position: this.position++ };
    known.bySeq.set(seq, entry);
    known.byKey.set(configKey, entry);
    known.inOrder.push(entry);
    this.openedCount += 1;
  }

  /** Drops the assessment's expired keys, at most once a minute. */
  private sweep(known: AssessmentKeys, now: number): void {
    if (now < known.sweepAt) return;
    known.sweepAt = now + OPENED_KEYS_SWEEP_MS;
    const live = known.inOrder.filter((entry) => entry.expiresAt > now);
    if (live.length === known.inOrder.length) return;
    for (const entry of known.inOrder) {
      if (entry.expiresAt > now) continue;
      known.bySeq.delete(entry.seq);
      if (known.byKey.get(entry.configKey) === entry) known.byKey.delete(entry.configKey);
    }
    this.openedCount -= known.inOrder.length - live.length;
    known.inOrder = live;
  }
}

function openedKeysKey(courseId: string, contentId: string, fingerprint: string): string {
  return `${courseId}/${contentId}/${fingerprint}`;
}

function configKeyBinding(id: string, courseId: string, contentId: string, fingerprint: string): string {
  return `exb_student_token:${id}:config-key:${courseId}:${contentId}:${fingerprint}`;
}
