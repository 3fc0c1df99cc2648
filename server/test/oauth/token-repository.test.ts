import { randomBytes, randomUUID } from 'node:crypto';
import { ADMIN_AND_APPLICATION_SCOPES, APPLICATION_SCOPES } from '@exb/shared/oauth-scopes.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli.js';
import { createLogger } from '../../src/logger.js';
import { GrantDowngradeRefusedError, LmsTokenRepository, tokenAssociatedData, type NewAuthorization } from '../../src/oauth/token-repository.js';
import { TokenKeyring } from '../../src/security/token-keyring.js';
import { createTestApp, type TestApp } from '../support/app.js';

const KEY_A = { kid: 'key-a', key: randomBytes(32) };
const KEY_B = { kid: 'key-b', key: randomBytes(32) };
const keysEnv = (...keys: { kid: string; key: Buffer }[]) => keys.map(({ kid, key }) => `${kid}:${key.toString('base64')}`).join(',');

const logger = createLogger('silent');

function authorization(overrides: Partial<NewAuthorization> = {}): NewAuthorization {
  return {
    lmsUserId: '2',
    scopes: APPLICATION_SCOPES,
    accessToken: `1~access-${randomUUID()}`,
    refreshToken: `1~refresh-${randomUUID()}`,
    expiresInSeconds: 3600,
    lmsUserName: 'Ian Instructor',
    lmsGlobalUserId: '10000000000002',
    lmsRegion: 'unknown',
    accountId: null,
    ltiIssuer: 'https://canvas.instructure.com',
    ltiSubject: `sub-user-${overrides.lmsUserId ?? '2'}`,
    ...overrides,
  };
}

interface RawRow {
  id: string;
  lms_user_id: string;
  grant_type: string;
  scopes: string[];
  token_key_id: string | null;
  access_token_ciphertext: Buffer | null;
  refresh_token_ciphertext: Buffer | null;
  legacy_access_token: string | null;
  legacy_refresh_token: string | null;
  account_id: string | null;
}

describe('LMS token records', () => {
  let t: TestApp;
  let repository: LmsTokenRepository;

  const rows = (lmsUserId?: string) =>
    t.db.orm.em
      .getConnection()
      .execute<RawRow[]>(
        lmsUserId === undefined ? 'select * from lms_oauth_token order by lms_user_id' : 'select * from lms_oauth_token where lms_user_id = ?',
        lmsUserId === undefined ? [] : [lmsUserId],
      );
  const sql = (query: string, params: unknown[] = []) => t.db.orm.em.getConnection().execute(query, params, 'run');

  beforeAll(async () => {
    t = await createTestApp({ env: { TOKEN_ENCRYPTION_KEYS: keysEnv(KEY_A) } });
    repository = new LmsTokenRepository(t.db.orm, new TokenKeyring([KEY_A]), logger);
  });
  afterAll(() => t?.close());
  beforeEach(() => sql('delete from lms_oauth_token'));

  it('stores no plaintext token: both tokens are sealed under the active key and read back', async () => {
    const grant = authorization();
    const saved = await repository.saveAuthorization(grant);
    expect(saved.grantType).toBe('instructor');

    const [row] = await rows('2');
    expect(row!.token_key_id).toBe('key-a');
    expect(row!.legacy_access_token).toBeNull();
    const dump = JSON.stringify(row) + row!.access_token_ciphertext!.toString('latin1') + row!.refresh_token_ciphertext!.toString('latin1');
    expect(dump).not.toContain(grant.accessToken);
    expect(dump).not.toContain(grant.refreshToken!);
    // Scope and identity metadata stay plaintext and queryable.
    const [match] = await t.db.orm.em
      .getConnection()
      .execute<{ n: string }[]>("select count(*) as n from lms_oauth_token where 'url:GET|/api/v1/courses' = any(scopes) and grant_type = 'instructor'");
    expect(Number(match!.n)).toBe(1);

    const stored = await repository.find('2');
    expect(stored).toMatchObject({ accessToken: grant.accessToken, refreshToken: grant.refreshToken, grantType: 'instructor', reauthorizationRequired: false });
  });

  it('uses a fresh nonce per write: the same token sealed twice gives different ciphertexts', async () => {
    const grant = authorization();
    await repository.saveAuthorization(grant);
    const first = (await rows('2'))[0]!.access_token_ciphertext!;
    await repository.saveAuthorization(grant);
    const second = (await rows('2'))[0]!.access_token_ciphertext!;
    expect(first.equals(second)).toBe(false);
  });

  it('fails decryption when an associated-data field changes (LMS user id or record id)', async () => {
    await repository.saveAuthorization(authorization({ lmsUserId: '2' }));
    await sql("update lms_oauth_token set lms_user_id = '99' where lms_user_id = '2'");
    expect(await repository.find('99')).toBe('unreadable');

    await sql('delete from lms_oauth_token');
    await repository.saveAuthorization(authorization({ lmsUserId: '3' }));
    await sql("update lms_oauth_token set id = ? where lms_user_id = '3'", [randomUUID()]);
    expect(await repository.find('3')).toBe('unreadable');
  });

  it('fails decryption when a ciphertext is moved to another row or column', async () => {
    await repository.saveAuthorization(authorization({ lmsUserId: '2' }));
    await repository.saveAuthorization(authorization({ lmsUserId: '3' }));
    await sql(
      "update lms_oauth_token set access_token_ciphertext = (select access_token_ciphertext from lms_oauth_token where lms_user_id = '2') where lms_user_id = '3'",
    );
    expect(await repository.find('3')).toBe('unreadable');
    await sql("update lms_oauth_token set access_token_ciphertext = refresh_token_ciphertext where lms_user_id = '2'");
    expect(await repository.find('2')).toBe('unreadable');
  });

  it('keeps exactly one record per LMS user: a reauthorization updates the same row', async () => {
    const first = await repository.saveAuthorization(authorization());
    const second = await repository.saveAuthorization(authorization());
    expect(second.id).toBe(first.id);
    expect(await rows()).toHaveLength(1);
    await expect(sql('insert into lms_oauth_token (id, lms_user_id, grant_type, scopes, legacy_access_token) values (?, ?, ?, array[?]::text[], ?)', [randomUUID(), '2', 'instructor', ['x'], 'y'])).rejects.toThrow(/lms_oauth_token_lms_user_id_key/);
  });

  it('upserts concurrent authorizations of one user into one record', async () => {
    const results = await Promise.all(Array.from({ length: 8 }, () => repository.saveAuthorization(authorization({ lmsUserId: '5' }))));
    expect(new Set(results.map((result) => result.id)).size).toBe(1);
    expect(await rows('5')).toHaveLength(1);
  });

  it('widens an instructor record to an administrator grant in place and never narrows it back', async () => {
    const instructor = await repository.saveAuthorization(authorization());
    const admin = await repository.saveAuthorization(authorization({ scopes: ADMIN_AND_APPLICATION_SCOPES, accountId: '1' }));
    expect(admin).toEqual({ id: instructor.id, grantType: 'account_admin' });
    const widened = (await rows('2'))[0]!;
    expect(widened.grant_type).toBe('account_admin');
    expect(widened.scopes).toEqual([...ADMIN_AND_APPLICATION_SCOPES]);
    expect(widened.account_id).toBe('1');

    await expect(repository.saveAuthorization(authorization())).rejects.toBeInstanceOf(GrantDowngradeRefusedError);
    expect((await rows('2'))[0]!.grant_type).toBe('account_admin');

    // An instructor reauthorization that requested the full set again keeps the account id and the grant type.
    const again = await repository.saveAuthorization(authorization({ scopes: ADMIN_AND_APPLICATION_SCOPES, accountId: null }));
    expect(again).toEqual({ id: instructor.id, grantType: 'account_admin' });
    expect((await rows('2'))[0]!.account_id).toBe('1');
  });

  it('marks a grant for reauthorization only at the version that failed', async () => {
    await repository.saveAuthorization(authorization());
    const stale = (await repository.findMetadata('2'))!;
    await repository.saveAuthorization(authorization());
    await repository.markReauthorizationRequired(stale);
    expect((await repository.findMetadata('2'))!.reauthorizationRequired).toBe(false);
    const current = (await repository.findMetadata('2'))!;
    await repository.markReauthorizationRequired(current);
    expect((await repository.findMetadata('2'))!.reauthorizationRequired).toBe(true);
    // A new authorization clears the mark.
    await repository.saveAuthorization(authorization());
    expect((await repository.findMetadata('2'))!.reauthorizationRequired).toBe(false);
  });

  describe('legacy rows, key rotation and migrate-tokens', () => {
    const insertLegacy = (lmsUserId: string, access: string, refresh: string | null) =>
      sql(
        `insert into lms_oauth_token (id, lms_user_id, grant_type, scopes, legacy_access_token, legacy_refresh_token, access_token_expires_at)
         values (?, ?, 'instructor', array[?]::text[], ?, ?, now() + interval '1 hour')`,
        [randomUUID(), lmsUserId, [...APPLICATION_SCOPES], access, refresh],
      );

    it('reads legacy plaintext rows in compatibility mode', async () => {
      await insertLegacy('7', '1~legacy-access', '1~legacy-refresh');
      expect(await repository.find('7')).toMatchObject({ accessToken: '1~legacy-access', refreshToken: '1~legacy-refresh', tokenKeyId: null });
    });

    it('encrypts legacy rows, re-encrypts rows under the old key, and is idempotent', async () => {
      await insertLegacy('7', '1~legacy-access-7', '1~legacy-refresh-7');
      await insertLegacy('8', '1~legacy-access-8', null);
      const grant = authorization({ lmsUserId: '9' });
      await repository.saveAuthorization(grant);

      // Rotate: key-b becomes active, key-a still opens.
      const rotated = new LmsTokenRepository(t.db.orm, new TokenKeyring([KEY_B, KEY_A]), logger);
      expect(await rotated.find('9')).toMatchObject({ accessToken: grant.accessToken, tokenKeyId: 'key-a' });

      const report = await rotated.migrateTokens(2);
      expect(report).toEqual({ scanned: 3, legacyEncrypted: 2, reencrypted: 1, alreadyCurrent: 0, unreadable: 0 });
      for (const row of await rows()) {
        expect(row.token_key_id).toBe('key-b');
        expect(row.legacy_access_token).toBeNull();
        expect(row.legacy_refresh_token).toBeNull();
      }
      expect(await rotated.find('7')).toMatchObject({ accessToken: '1~legacy-access-7', refreshToken: '1~legacy-refresh-7' });
      expect(await rotated.find('8')).toMatchObject({ accessToken: '1~legacy-access-8', refreshToken: null });
      expect(await rotated.find('9')).toMatchObject({ accessToken: grant.accessToken, refreshToken: grant.refreshToken });
      // The old key alone no longer opens anything.
      expect(await repository.find('9')).toBe('unreadable');

      expect(await rotated.migrateTokens()).toEqual({ scanned: 3, legacyEncrypted: 0, reencrypted: 0, alreadyCurrent: 3, unreadable: 0 });
    });

    it('counts rows it cannot open and leaves them unchanged', async () => {
      await repository.saveAuthorization(authorization({ lmsUserId: '4' }));
      const before = (await rows('4'))[0]!;
      const withoutOldKey = new LmsTokenRepository(t.db.orm, new TokenKeyring([KEY_B]), logger);
      expect(await withoutOldKey.migrateTokens()).toEqual({ scanned: 1, legacyEncrypted: 0, reencrypted: 0, alreadyCurrent: 0, unreadable: 1 });
      expect((await rows('4'))[0]!.access_token_ciphertext!.equals(before.access_token_ciphertext!)).toBe(true);

      // The command reports the same and exits non-zero, so a rotation script stops before dropping the old key.
      const env = { NODE_ENV: 'test', LOG_LEVEL: 'silent', DATA_DIR: t.dataDir, DATABASE_URL: t.databaseUrl, TOKEN_ENCRYPTION_KEYS: keysEnv(KEY_B) };
      const lines: string[] = [];
      expect(await runCli(['migrate-tokens'], env, (line) => lines.push(line) > 0)).toBe(3);
      expect(lines.join('\n')).toContain('could not be decrypted');
    });

    it('runs as `npm run cli -- migrate-tokens` and reports the counts', async () => {
      await insertLegacy('7', '1~legacy-access-cli', '1~legacy-refresh-cli');
      await repository.saveAuthorization(authorization({ lmsUserId: '9' }));
      const env = { NODE_ENV: 'test', LOG_LEVEL: 'silent', DATA_DIR: t.dataDir, DATABASE_URL: t.databaseUrl, TOKEN_ENCRYPTION_KEYS: keysEnv(KEY_B, KEY_A) };
      const lines: string[] = [];
      expect(await runCli(['migrate-tokens'], env, (line) => lines.push(line) > 0)).toBe(0);
      expect(lines).toContain('Token records scanned: 2');
      expect(lines).toContain('Legacy plaintext records encrypted: 1');
      expect(lines).toContain('Records re-encrypted under the active key "key-b": 1');
      expect(lines.join('\n')).not.toContain('1~legacy');

      const again: string[] = [];
      await runCli(['migrate-tokens'], env, (line) => again.push(line) > 0);
      expect(again).toContain('Records already current: 2');
      const rotated = new LmsTokenRepository(t.db.orm, new TokenKeyring([KEY_B]), logger);
      expect(await rotated.find('7')).toMatchObject({ accessToken: '1~legacy-access-cli' });
    });
  });

  it('binds the associated data to record id, user id and field', () => {
    expect(tokenAssociatedData('r', 'u', 'access')).not.toBe(tokenAssociatedData('r', 'u', 'refresh'));
    expect(tokenAssociatedData('r', 'u', 'access')).toContain('|r|u|');
  });
});
