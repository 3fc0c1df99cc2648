import type { Pool } from 'pg';
import type { Clock } from '../../clock.js';
import { open, seal } from '../../security/aead.js';

/** Opened Config Keys kept per process: a few hundred per assessment in an exam window, a few megabytes in all. */
const OPENED_KEYS_MAX = 50_000;

interface OpenedConfigKey {
  readonly configKey: string;
  /** Epoch milliseconds. */
  readonly expiresAt: number;
}

/**
 * The Config Keys of per-download configurations: sealed into their config grant's row of `exb_student_token` (bound
 * to the row's id, course, content and fingerprint) when the grant is spent, and opened at most once per process. A
 * proof tries the keys this process has opened first, and reads the others only when none of those matches.
 */
export class OpenedConfigKeys {
  /** Opened keys by assessment and fingerprint, then by sequence number. Stored keys never change. */
  private readonly opened = new Map<string, Map<string, OpenedConfigKey>>();
  private openedCount = 0;

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
   * Unexpired Config Keys of downloads of an assessment under `fingerprint` that this process has opened, without a
   * query: a proof tries these first, and only when none matches asks {@link refresh}.
   */
  known(courseId: string, contentId: string, fingerprint: string): string[] {
    const known = this.opened.get(openedKeysKey(courseId, contentId, fingerprint));
    if (known === undefined) return [];
    const now = this.clock();
    const keys: string[] = [];
    for (const [seq, entry] of known) {
      if (entry.expiresAt > now) keys.push(entry.configKey);
      else known.delete(seq);
    }
    return keys;
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
      values: [courseId, contentId, fingerprint, new Date(this.clock()), known === undefined ? [] : [...known.keys()]],
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
        this.openedCount -= entries.size;
        this.opened.delete(oldest);
      }
      known = new Map();
      this.opened.set(key, known);
    }
    if (!known.has(seq)) this.openedCount += 1;
    known.set(seq, { configKey, expiresAt });
  }
}

function openedKeysKey(courseId: string, contentId: string, fingerprint: string): string {
  return `${courseId}/${contentId}/${fingerprint}`;
}

function configKeyBinding(id: string, courseId: string, contentId: string, fingerprint: string): string {
  return `exb_student_token:${id}:config-key:${courseId}:${contentId}:${fingerprint}`;
}
