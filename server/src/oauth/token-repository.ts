import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Pool } from 'pg';
import type { Logger } from 'pino';
import type { TokenKeyring } from '../security/token-keyring.js';
import { grantTypeForScopes, type GrantType } from './grant-rules.js';

/** What every read of a record knows without decrypting anything. */
export interface GrantMetadata {
  id: string;
  lmsUserId: string;
  grantType: GrantType;
  scopes: string[];
  accountId: string | null;
  /** The `(issuer, sub)` whose authorization proved the user id; `null` on a record from before identity binding. */
  ltiIssuer: string | null;
  ltiSubject: string | null;
  accessTokenExpiresAt: Date | null;
  reauthorizationRequired: boolean;
  /** `null` for a legacy plaintext row. */
  tokenKeyId: string | null;
  version: number;
}

export interface StoredGrant extends GrantMetadata {
  accessToken: string;
  refreshToken: string | null;
}

export interface NewAuthorization {
  lmsUserId: string;
  scopes: readonly string[];
  accessToken: string;
  refreshToken: string | null;
  expiresInSeconds: number | null;
  lmsUserName: string | null;
  lmsGlobalUserId: string | null;
  lmsRegion: string | null;
  /** The verified root account of an administrator authorization. */
  accountId: string | null;
  /** The signed identity of the launch whose session completed the authorization: the LMS proved the user id for it. */
  ltiIssuer: string;
  ltiSubject: string;
}

export interface RefreshedTokens {
  accessToken: string;
  /** `null` keeps the stored refresh token (the LMS does not send a new one on refresh). */
  refreshToken: string | null;
  expiresInSeconds: number | null;
}

export interface MigrationReport {
  scanned: number;
  legacyEncrypted: number;
  reencrypted: number;
  alreadyCurrent: number;
  unreadable: number;
}

/**
 * The authorization would bind a user id to a second subject, or a subject to a second user id: one side was proven
 * for someone else before. Identity bindings never change, so the authorization is refused.
 */
export class IdentityBindingConflictError extends Error {
  constructor() {
    super('the LMS user id or LTI subject is already bound to another identity');
    this.name = 'IdentityBindingConflictError';
  }
}

/** An authorization with only the application scopes arrived for a user whose record holds an administrator grant. */
export class GrantDowngradeRefusedError extends Error {
  constructor() {
    super('an administrator grant is never replaced by a narrower one');
    this.name = 'GrantDowngradeRefusedError';
  }
}

interface Row {
  id: string;
  lms_user_id: string;
  grant_type: GrantType;
  scopes: string[];
  account_id: string | null;
  lti_issuer: string | null;
  lti_subject: string | null;
  access_token_expires_at: Date | null;
  reauthorization_required_at: Date | null;
  token_key_id: string | null;
  access_token_ciphertext: Buffer | null;
  refresh_token_ciphertext: Buffer | null;
  legacy_access_token: string | null;
  legacy_refresh_token: string | null;
  version: number;
}

const COLUMNS = `id, lms_user_id, grant_type, scopes, account_id, lti_issuer, lti_subject, access_token_expires_at,
  reauthorization_required_at, token_key_id, access_token_ciphertext, refresh_token_ciphertext, legacy_access_token, legacy_refresh_token, version`;

/**
 * Binds a ciphertext to its row and field: the record id and the LMS user id (the contract's associated data) plus
 * which token it is, so a ciphertext copied to another row, another user or the other column does not open.
 */
export function tokenAssociatedData(id: string, lmsUserId: string, field: 'access' | 'refresh'): string {
  return `lms-oauth-token/v1|${id}|${lmsUserId}|${field}`;
}

/** A unique or check violation of the named constraint, as the PostgreSQL driver reports it through the ORM. */
function isConstraintViolation(error: unknown, constraint: string): boolean {
  const record = error as { constraint?: unknown; code?: unknown } | null;
  return typeof record === 'object' && record !== null && record.constraint === constraint;
}

function expiryFrom(expiresInSeconds: number | null): Date | null {
  return expiresInSeconds === null ? null : new Date(Date.now() + expiresInSeconds * 1000);
}

function metadataOf(row: Row): GrantMetadata {
  return {
    id: row.id,
    lmsUserId: row.lms_user_id,
    grantType: row.grant_type,
    scopes: row.scopes,
    accountId: row.account_id,
    ltiIssuer: row.lti_issuer,
    ltiSubject: row.lti_subject,
    accessTokenExpiresAt: row.access_token_expires_at ? new Date(row.access_token_expires_at) : null,
    reauthorizationRequired: row.reauthorization_required_at !== null,
    tokenKeyId: row.token_key_id,
    version: row.version,
  };
}

/**
 * The LMS OAuth token records: exactly one per LMS user, access and refresh tokens sealed with AES-256-GCM under the
 * token keyring, scope and identity metadata in plain columns. Legacy plaintext rows are read as they are until
 * `migrate-tokens` seals them. Plaintext tokens never appear in SQL text, logs or errors.
 */
export class LmsTokenRepository {
  private pool: Promise<Pool> | undefined;

  constructor(
    private readonly orm: MikroORM,
    private readonly keyring: TokenKeyring,
    private readonly logger: Logger,
  ) {}

  /**
   * The ORM's own connection pool. Every student's start reads a grant (the config grant and the download) and checks
   * the launch's identity bindings: those reads run as named prepared statements there, like the student flow's other
   * hot statements, rather than through the ORM's parameter formatting.
   */
  private nativePool(): Promise<Pool> {
    return (this.pool ??= this.orm.em.getConnection().getNativeClient() as Promise<Pool>);
  }

  /**
   * The identity bindings the records hold under `subject.issuer` that involve its user id or its subject (each record
   * binds one user id to the subject whose authorization proved it); what `identity/` checks claimed ids against.
   */
  async userBindings(subject: { issuer: string; lmsUserId: string; ltiSubject: string }): Promise<{ lmsUserId: string; ltiSubject: string }[]> {
    const { rows } = await (await this.nativePool()).query<{ lms_user_id: string; lti_subject: string }>({
      name: 'lms-oauth-token-user-bindings',
      text: 'select lms_user_id, lti_subject from lms_oauth_token where lti_issuer = $1 and (lms_user_id = $2 or lti_subject = $3)',
      values: [subject.issuer, subject.lmsUserId, subject.ltiSubject],
    });
    return rows.map((row) => ({ lmsUserId: row.lms_user_id, ltiSubject: row.lti_subject }));
  }

  /**
   * Whose stored grant can check a course's access codes when nobody is at the keyboard (the background verifier, a
   * reset's recovery): only a manager of the course, that is the instructor (or administrator) the course binding
   * names as its prover, or an administrator of the root account the course is connected in; never a student, even one
   * who proved the course. Among them the preferred user (whose grant last checked it) comes first, then instructors.
   * Only grants bound to a signed identity and not waiting for re-authorization qualify; the holder is what
   * `LmsConnector.forPrincipal` needs.
   */
  async courseManagerHolder(courseId: string, preferredLmsUserId: string | null): Promise<{ lmsUserId: string; issuer: string; ltiSubject: string } | null> {
    const rows = await this.orm.em.getConnection().execute<{ lms_user_id: string; lti_issuer: string; lti_subject: string }[]>(
      `select t.lms_user_id, t.lti_issuer, t.lti_subject from lms_oauth_token t
       where t.lti_issuer is not null and t.lti_subject is not null and t.reauthorization_required_at is null
         and (t.lms_user_id in (select b.proven_by_lms_user_id from lti_context_binding b
                where b.context_kind = 'course' and b.lms_id = ? and b.proven_by_role in ('instructor', 'administrator'))
           or (t.grant_type = 'account_admin' and t.account_id in (select c.account_id from admin_course c where c.course_id = ?)))
       order by (t.lms_user_id = ?) desc, (t.grant_type = 'account_admin') asc, t.lms_user_id
       limit 1`,
      [courseId, courseId, preferredLmsUserId ?? ''],
    );
    const row = rows[0];
    return row === undefined ? null : { lmsUserId: row.lms_user_id, issuer: row.lti_issuer, ltiSubject: row.lti_subject };
  }

  /**
   * A usable administrator grant for the root account a course is connected in (the administrator who connected it
   * first): whose grant proves the course for a launch's context when no launch of the course proved it
   * (`identity/identity-service.ts`, `courseProvenForReading`).
   */
  async courseAdministratorHolder(courseId: string): Promise<{ lmsUserId: string; issuer: string; ltiSubject: string } | null> {
    const rows = await this.orm.em.getConnection().execute<{ lms_user_id: string; lti_issuer: string; lti_subject: string }[]>(
      `select t.lms_user_id, t.lti_issuer, t.lti_subject from lms_oauth_token t join admin_course c on c.account_id = t.account_id
       where c.course_id = ? and t.grant_type = 'account_admin' and t.lti_issuer is not null and t.lti_subject is not null
         and t.reauthorization_required_at is null
       order by (t.lms_user_id = c.connected_by_lms_user_id) desc, t.lms_user_id
       limit 1`,
      [courseId],
    );
    const row = rows[0];
    return row === undefined ? null : { lmsUserId: row.lms_user_id, issuer: row.lti_issuer, ltiSubject: row.lti_subject };
  }

  async findMetadata(lmsUserId: string): Promise<GrantMetadata | null> {
    const row = await this.row(lmsUserId);
    return row ? metadataOf(row) : null;
  }

  /** The decrypted grant, `null` when there is none, `'unreadable'` when its ciphertext does not open. */
  async find(lmsUserId: string): Promise<StoredGrant | 'unreadable' | null> {
    const row = await this.row(lmsUserId);
    if (!row) return null;
    return this.decrypt(row) ?? 'unreadable';
  }

  /**
   * Stores a completed authorization on the user's one record: inserts it, or updates it in place (same id) under a
   * row lock. An administrator record is only replaced by another administrator grant; the start endpoints request the
   * administrator set whenever one exists, so a narrower grant here means the record changed during the flow. The
   * record is bound to the authorizing subject; a record bound to another subject, or a subject bound to another
   * user, refuses the authorization ({@link IdentityBindingConflictError}).
   */
  async saveAuthorization(grant: NewAuthorization): Promise<{ id: string; grantType: GrantType }> {
    try {
      return await this.upsertAuthorization(grant);
    } catch (error) {
      if (isConstraintViolation(error, 'lms_oauth_token_lti_identity_key')) throw new IdentityBindingConflictError();
      throw error;
    }
  }

  private async upsertAuthorization(grant: NewAuthorization): Promise<{ id: string; grantType: GrantType }> {
    const grantType = grantTypeForScopes(grant.scopes);
    const scopes = [...grant.scopes];
    const expiresAt = expiryFrom(grant.expiresInSeconds);
    return this.orm.em.fork().transactional(async (em) => {
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const existing = await em.execute<Row[]>(`select ${COLUMNS} from lms_oauth_token where lms_user_id = ? for update`, [grant.lmsUserId]);
        const current = existing[0];
        const id = current?.id ?? randomUUID();
        const sealed = this.sealPair(id, grant.lmsUserId, grant.accessToken, grant.refreshToken);
        // What both statements write, in the order of their columns.
        const written = [
          grantType,
          scopes,
          grant.lmsUserName,
          grant.lmsGlobalUserId,
          grant.lmsRegion,
          grant.accountId,
          grant.ltiIssuer,
          grant.ltiSubject,
          sealed.kid,
          sealed.access,
          sealed.refresh,
          expiresAt,
        ];
        if (current) {
          if (current.lti_subject !== null && (current.lti_subject !== grant.ltiSubject || current.lti_issuer !== grant.ltiIssuer)) {
            throw new IdentityBindingConflictError();
          }
          if (current.grant_type === 'account_admin' && grantType !== 'account_admin') throw new GrantDowngradeRefusedError();
          await em.execute(
            `update lms_oauth_token set grant_type = ?, scopes = array[?]::text[], lms_user_name = ?, lms_global_user_id = ?,
               lms_region = ?, account_id = coalesce(?, account_id), lti_issuer = ?, lti_subject = ?, token_key_id = ?,
               access_token_ciphertext = ?,
               refresh_token_ciphertext = ?, legacy_access_token = null, legacy_refresh_token = null,
               access_token_expires_at = ?, reauthorization_required_at = null, authorized_at = now(), refreshed_at = null,
               updated_at = now(), version = version + 1
             where id = ?`,
            [...written, id],
            'run',
          );
          return { id, grantType };
        }
        const inserted = await em.execute<{ id: string }[]>(
          `insert into lms_oauth_token (id, lms_user_id, grant_type, scopes, lms_user_name, lms_global_user_id, lms_region,
             account_id, lti_issuer, lti_subject, token_key_id, access_token_ciphertext, refresh_token_ciphertext,
             access_token_expires_at)
           values (?, ?, ?, array[?]::text[], ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
           on conflict (lms_user_id) do nothing
           returning id`,
          [id, grant.lmsUserId, ...written],
        );
        if (inserted[0]) return { id, grantType };
        // Another authorization for the same user inserted first; lock and update its row instead.
      }
      throw new Error('could not store the LMS authorization');
    });
  }

  /**
   * Stores refreshed tokens if the record is still the version the refresh started from; `false` when a newer
   * authorization or refresh got there first (its tokens win).
   */
  async saveRefresh(grant: Pick<GrantMetadata, 'id' | 'lmsUserId' | 'version'> & { refreshToken: string | null }, tokens: RefreshedTokens): Promise<boolean> {
    const refreshToken = tokens.refreshToken ?? grant.refreshToken;
    const sealed = this.sealPair(grant.id, grant.lmsUserId, tokens.accessToken, refreshToken);
    const result = await this.orm.em.getConnection().execute<{ affectedRows: number }>(
      `update lms_oauth_token set token_key_id = ?, access_token_ciphertext = ?, refresh_token_ciphertext = ?,
         legacy_access_token = null, legacy_refresh_token = null, access_token_expires_at = ?, refreshed_at = now(),
         updated_at = now(), version = version + 1
       where id = ? and lms_user_id = ? and version = ? and reauthorization_required_at is null`,
      [sealed.kid, sealed.access, sealed.refresh, expiryFrom(tokens.expiresInSeconds), grant.id, grant.lmsUserId, grant.version],
      'run',
    );
    return result.affectedRows === 1;
  }

  /**
   * Marks the grant unusable until the user authorizes again (the LMS revoked it). Only the version that failed is
   * marked, so a new authorization stored meanwhile stays usable.
   */
  async markReauthorizationRequired(grant: Pick<GrantMetadata, 'id' | 'version'>): Promise<void> {
    await this.orm.em.getConnection().execute(
      `update lms_oauth_token set reauthorization_required_at = now(), updated_at = now(), version = version + 1
       where id = ? and version = ? and reauthorization_required_at is null`,
      [grant.id, grant.version],
      'run',
    );
  }

  /**
   * Seals legacy plaintext rows and re-seals rows under an older key with the active key. Each row is rewritten in
   * its own short transaction under a row lock, so the command can run beside a live service and be run again at
   * any time; rows already current are left alone. Rows that do not open are counted and left as they are.
   */
  async migrateTokens(batchSize = 200): Promise<MigrationReport> {
    const report: MigrationReport = { scanned: 0, legacyEncrypted: 0, reencrypted: 0, alreadyCurrent: 0, unreadable: 0 };
    const connection = this.orm.em.getConnection();
    let after = '00000000-0000-0000-0000-000000000000';
    for (;;) {
      const ids = await connection.execute<{ id: string; token_key_id: string | null }[]>(
        'select id, token_key_id from lms_oauth_token where id > ? order by id limit ?',
        [after, batchSize],
      );
      if (ids.length === 0) return report;
      after = ids[ids.length - 1]!.id;
      for (const { id } of ids) {
        report.scanned += 1;
        const outcome = await this.migrateRow(id);
        report[outcome] += 1;
      }
    }
  }

  private async migrateRow(id: string): Promise<'legacyEncrypted' | 'reencrypted' | 'alreadyCurrent' | 'unreadable'> {
    return this.orm.em.fork().transactional(async (em) => {
      const row = (await em.execute<Row[]>(`select ${COLUMNS} from lms_oauth_token where id = ? for update`, [id]))[0];
      if (!row) return 'alreadyCurrent';
      if (row.token_key_id === this.keyring.activeKid) return 'alreadyCurrent';
      const grant = this.decrypt(row);
      if (!grant) return 'unreadable';
      const sealed = this.sealPair(row.id, row.lms_user_id, grant.accessToken, grant.refreshToken);
      await em.execute(
        `update lms_oauth_token set token_key_id = ?, access_token_ciphertext = ?, refresh_token_ciphertext = ?,
           legacy_access_token = null, legacy_refresh_token = null, updated_at = now(), version = version + 1
         where id = ?`,
        [sealed.kid, sealed.access, sealed.refresh, row.id],
        'run',
      );
      return row.token_key_id === null ? 'legacyEncrypted' : 'reencrypted';
    });
  }

  private async row(lmsUserId: string): Promise<Row | undefined> {
    const { rows } = await (await this.nativePool()).query<Row>({
      name: 'lms-oauth-token-row',
      text: `select ${COLUMNS} from lms_oauth_token where lms_user_id = $1`,
      values: [lmsUserId],
    });
    return rows[0];
  }

  private sealPair(id: string, lmsUserId: string, accessToken: string, refreshToken: string | null) {
    const access = this.keyring.seal(accessToken, tokenAssociatedData(id, lmsUserId, 'access'));
    const refresh = refreshToken === null ? null : this.keyring.seal(refreshToken, tokenAssociatedData(id, lmsUserId, 'refresh'));
    return { kid: access.kid, access: access.ciphertext, refresh: refresh?.ciphertext ?? null };
  }

  private decrypt(row: Row): StoredGrant | null {
    const metadata = metadataOf(row);
    if (row.token_key_id === null) {
      // Compatibility mode: rows from before encryption hold plaintext until `migrate-tokens` rewrites them.
      if (!row.legacy_access_token) return null;
      return { ...metadata, accessToken: row.legacy_access_token, refreshToken: row.legacy_refresh_token };
    }
    const accessToken = row.access_token_ciphertext
      ? this.keyring.open(row.token_key_id, row.access_token_ciphertext, tokenAssociatedData(row.id, row.lms_user_id, 'access'))
      : null;
    const refreshToken = row.refresh_token_ciphertext
      ? this.keyring.open(row.token_key_id, row.refresh_token_ciphertext, tokenAssociatedData(row.id, row.lms_user_id, 'refresh'))
      : null;
    if (accessToken === null || (row.refresh_token_ciphertext && refreshToken === null)) {
      this.logger.error(
        { tokenRecordId: row.id, tokenKeyId: row.token_key_id, keyKnown: this.keyring.has(row.token_key_id) },
        'LMS token record does not decrypt; the user must authorize again',
      );
      return null;
    }
    return { ...metadata, accessToken, refreshToken };
  }
}
