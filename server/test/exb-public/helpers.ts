import { readFileSync } from 'node:fs';
import path from 'node:path';
import forge from 'node-forge';
import { generateKeyPairSync } from 'node:crypto';
import { DEVELOPMENT_CERTIFICATE_FILE, DEVELOPMENT_CERTIFICATE_KEY_FILE } from '../../src/config/dev-secrets.js';
import { computeConfigKey, loadCertificate, readContainer, readPlist, type PlistDict } from '../../src/exb/index.js';

export const SERVICE = 'https://tool.example.test';
export const LMS = 'https://lms.example.test';

/** The certificate and private key development mode generated into a test app's data directory. */
export function developmentIdentity(dataDir: string): { certificatePem: string; privateKeyPem: string } {
  const secrets = path.join(dataDir, 'secrets');
  return {
    certificatePem: readFileSync(path.join(secrets, DEVELOPMENT_CERTIFICATE_FILE), 'utf8'),
    privateKeyPem: readFileSync(path.join(secrets, DEVELOPMENT_CERTIFICATE_KEY_FILE), 'utf8'),
  };
}

/** Decrypts a configuration with the server's own readers (the simulator in e2e is the independent reader). */
export function openWith(
  bytes: Buffer,
  identity?: { certificatePem: string; privateKeyPem: string },
): { settings: PlistDict; configKey: string; layers: string[] } {
  const { xml, layers } = readContainer(bytes, {
    identities: identity
      ? [{ certificate: loadCertificate(identity.certificatePem), privateKey: identity.privateKeyPem }]
      : [],
  });
  const settings = readPlist(xml);
  return { settings, configKey: computeConfigKey(settings), layers };
}

export function bootstrapOf(html: string): Record<string, unknown> {
  const match = /<script id="exb-bootstrap" type="application\/json">(.*?)<\/script>/s.exec(html);
  if (!match?.[1]) throw new Error('no bootstrap element');
  return JSON.parse(match[1]) as Record<string, unknown>;
}

/** A self-signed certificate with a chosen key size and validity, for the cases the development generator refuses. */
export function customCertificate(options: { modulusLength: number; notBefore: Date; notAfter: Date }): string {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: options.modulusLength });
  const certificate = forge.pki.createCertificate();
  certificate.publicKey = forge.pki.publicKeyFromPem(publicKey.export({ type: 'spki', format: 'pem' }).toString());
  certificate.serialNumber = '01';
  certificate.validity.notBefore = options.notBefore;
  certificate.validity.notAfter = options.notAfter;
  const name = [{ name: 'commonName', value: 'exb-public test' }];
  certificate.setSubject(name);
  certificate.setIssuer(name);
  certificate.sign(
    forge.pki.privateKeyFromPem(privateKey.export({ type: 'pkcs1', format: 'pem' }).toString()),
    forge.md.sha256.create(),
  );
  return forge.pki.certificateToPem(certificate);
}

// Valid X.509 with an EC key: no RSA key to encrypt configurations with.
export const EC_CERTIFICATE = `-----BEGIN CERTIFICATE-----
MIIBeDCCAR+gAwIBAgIUUZ/RXOgcd6xBNU9DHVUz1xcwAu0wCgYIKoZIzj0EAwIw
EjEQMA4GA1UEAwwHZWMtdGVzdDAeFw0yNjExMjEwOTE2NTdaFw0zNjExMTgwOTE2
NTdaMBIxEDAOBgNVBAMMB2VjLXRlc3QwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNC
AAQ+pfk3lCAHIJgnGtKt2N8qQBQqdcZDXOHdTAbaHgNlMiSDBjoPA9xXe1oDlYtp
y8zoB9EZ/KZSMc3md9Pwh1Txo1MwUTAdBgNVHQ4EFgQUsDpXle+sOIH95qZdB4No
nrVpc+UwHwYDVR0jBBgwFoAUsDpXle+sOIH95qZdB4NonrVpc+UwDwYDVR0TAQH/
BAUwAwEB/zAKBggqhkjOPQQDAgNHADBEAiAxttb5ri8mR9jgo0CPF/s1QfrbI9ub
vEHHaWgueQDWHwIgXyeca5jVEea5aSMIVwPrJ3np5lgg9wbv3G6qB3c1tmA=
-----END CERTIFICATE-----
`;
