import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { DEVELOPMENT_CERTIFICATE_FILE, DEVELOPMENT_CERTIFICATE_KEY_FILE } from '@exb/server/config/dev-secrets.js';
import type { ExamBrowserIdentity } from './host.js';

/**
 * The certificate a development service encrypts configurations for, with its private key, as the service generated
 * them into `DATA_DIR/secrets`. `undefined` when the service uses a certificate of its own (`EXB_CONFIG_CERTIFICATE`),
 * whose key the testbed does not have, or encrypts nothing.
 */
export function developmentExamBrowserIdentity(service: {
  dataDir: string;
  exb: { certificatePath: string | undefined };
}): ExamBrowserIdentity | undefined {
  const secrets = path.join(service.dataDir, 'secrets');
  const certificatePath = path.join(secrets, DEVELOPMENT_CERTIFICATE_FILE);
  const keyPath = path.join(secrets, DEVELOPMENT_CERTIFICATE_KEY_FILE);
  if (service.exb.certificatePath === undefined || path.resolve(service.exb.certificatePath) !== certificatePath) return undefined;
  if (!existsSync(keyPath)) return undefined;
  return { certificatePem: readFileSync(certificatePath, 'utf8'), privateKeyPem: readFileSync(keyPath, 'utf8') };
}
