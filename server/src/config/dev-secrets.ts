import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { generateSelfSignedCertificate } from '../exb/certificate.js';

/**
 * Development-only secrets. They are generated on the first start and kept in DATA_DIR so that a restart keeps
 * sessions, stored grants and downloaded configurations valid. Production never reaches this module.
 */
const storedSecretsSchema = z.object({
  appSecret: z.string().min(32),
  tokenEncryptionKey: z.string().min(1),
  toolPrivateKeyPem: z.string().min(1),
});


export const DEVELOPMENT_SECRETS_FILE = 'development-secrets.json';
export const DEVELOPMENT_CERTIFICATE_FILE = 'exb-config-certificate.pem';
export const DEVELOPMENT_CERTIFICATE_KEY_FILE = 'exb-config-private-key.pem';

function writePrivateFile(file: string, content: string): void {
  // Write then rename, so two processes starting at once never read a half-written file.
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, content, { mode: 0o600 });
  renameSync(temporary, file);
}

export function loadOrCreateDevelopmentSecrets(dataDir: string, options: { needCertificate: boolean }) {
  const secretsDir = path.join(dataDir, 'secrets');
  mkdirSync(secretsDir, { recursive: true, mode: 0o700 });

  const secretsFile = path.join(secretsDir, DEVELOPMENT_SECRETS_FILE);
  let stored: z.infer<typeof storedSecretsSchema>;
  if (existsSync(secretsFile)) {
    stored = storedSecretsSchema.parse(JSON.parse(readFileSync(secretsFile, 'utf8')));
  } else {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    stored = {
      appSecret: randomBytes(48).toString('base64url'),
      tokenEncryptionKey: `dev1:${randomBytes(32).toString('base64')}`,
      toolPrivateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    };
    writePrivateFile(secretsFile, JSON.stringify(stored, null, 2));
  }

  let certificatePath: string | undefined;
  if (options.needCertificate) {
    certificatePath = path.join(secretsDir, DEVELOPMENT_CERTIFICATE_FILE);
    const keyPath = path.join(secretsDir, DEVELOPMENT_CERTIFICATE_KEY_FILE);
    if (!existsSync(certificatePath) || !existsSync(keyPath)) {
      const pair = generateSelfSignedCertificate({ commonName: 'exam-enforcement development', days: 3650 });
      writePrivateFile(keyPath, pair.privateKeyPem);
      writePrivateFile(certificatePath, pair.certificatePem);
    }
  }

  const [kid, key] = stored.tokenEncryptionKey.split(':') as [string, string];
  return {
    appSecret: stored.appSecret,
    tokenEncryptionKeys: [{ kid, key: Buffer.from(key, 'base64') }],
    toolPrivateKeys: [stored.toolPrivateKeyPem],
    certificatePath,
    certificatePrivateKeyPath: certificatePath ? path.join(secretsDir, DEVELOPMENT_CERTIFICATE_KEY_FILE) : undefined,
  };
}
