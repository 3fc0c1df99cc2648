import type { Logger } from 'pino';
import { ConfigError } from './app-config.js';
import { CertificateStore, CertificateUnusableError, type CertificateStoreOptions } from '../exb/certificate-store.js';

const VARIABLE = 'EXB_CONFIG_CERTIFICATE';

/**
 * The certificate exam-browser configurations are encrypted for (`EXB_CONFIG_CERTIFICATE`), read once at start. One
 * that cannot be used stops the start with a configuration error naming the variable, so an operator never runs a
 * service that silently serves unencrypted or unreadable configurations.
 */
export function loadExbCertificate(options: CertificateStoreOptions, logger?: Pick<Logger, 'warn'>): CertificateStore {
  if (options.configEncryptionEnabled && options.certificatePath === undefined) {
    throw new ConfigError([`${VARIABLE}: is required while EXB_CONFIG_ENCRYPTION_ENABLED is true`]);
  }
  try {
    return CertificateStore.load(options, logger);
  } catch (error) {
    if (error instanceof CertificateUnusableError) throw new ConfigError([`${VARIABLE}: ${error.message}`]);
    throw error;
  }
}
