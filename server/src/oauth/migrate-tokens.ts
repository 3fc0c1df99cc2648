import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { AppConfig } from '../config/app-config.js';
import { createTokenRepository } from './services.js';
import type { MigrationReport } from './token-repository.js';

/**
 * `npm run cli -- migrate-tokens`: seals legacy plaintext token rows and re-seals rows under older keys with the
 * active key of `TOKEN_ENCRYPTION_KEYS`. Safe to repeat; a second run reports every row as current.
 */
export async function migrateTokens(config: AppConfig, orm: MikroORM, logger: Logger): Promise<MigrationReport> {
  return createTokenRepository(config, orm, logger).migrateTokens();
}

export function describeMigrationReport(report: MigrationReport, activeKid: string): string[] {
  return [
    `Token records scanned: ${report.scanned}`,
    `Legacy plaintext records encrypted: ${report.legacyEncrypted}`,
    `Records re-encrypted under the active key "${activeKid}": ${report.reencrypted}`,
    `Records already current: ${report.alreadyCurrent}`,
    `Records that could not be decrypted (left unchanged; those users must authorize again): ${report.unreadable}`,
  ];
}
