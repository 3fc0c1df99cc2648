import { createHash, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVELOPMENT_CERTIFICATE_FILE } from '../../src/config/dev-secrets.js';
import { generateSelfSignedCertificate } from '../../src/exb/certificate.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { LMS, SERVICE } from './helpers.js';

const PEM_PATH = '/exb/config-encryption-certificate.pem';
const CER_PATH = '/exb/config-encryption-certificate.cer';

/** Recomputed here from the file, independently of the service: SHA-256 of the SubjectPublicKeyInfo DER. */
function expectedHash(pem: string): string {
  const spki = new X509Certificate(pem).publicKey.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(spki).digest('hex');
}

describe('certificate downloads with the development certificate', () => {
  let t: TestApp;
  let pem: string;
  beforeAll(async () => {
    t = await createTestApp({ env: { BASE_URL: SERVICE, LMS_URL: LMS } });
    pem = readFileSync(path.join(t.dataDir, 'secrets', DEVELOPMENT_CERTIFICATE_FILE), 'utf8');
  });
  afterAll(() => t.close());

  it('GET .pem serves the certificate as a PEM attachment with its public-key hash', async () => {
    const response = await t.app.inject({ method: 'GET', url: PEM_PATH });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/x-pem-file');
    expect(response.headers['content-disposition']).toBe('attachment; filename=exb-config-encryption-certificate.pem');
    expect(response.headers['x-exb-public-key-hash']).toBe(expectedHash(pem));
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.body).toMatch(/^-----BEGIN CERTIFICATE-----\n/);
    expect(new X509Certificate(response.body).fingerprint256).toBe(new X509Certificate(pem).fingerprint256);
  });

  it('GET .cer serves the same certificate as DER', async () => {
    const response = await t.app.inject({ method: 'GET', url: CER_PATH });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/pkix-cert');
    expect(response.headers['content-disposition']).toBe('attachment; filename=exb-config-encryption-certificate.cer');
    expect(response.headers['x-exb-public-key-hash']).toBe(expectedHash(pem));
    expect(response.rawPayload.equals(new X509Certificate(pem).raw)).toBe(true);
  });

  it('HEAD answers with the same headers and no body', async () => {
    const response = await t.app.inject({ method: 'HEAD', url: CER_PATH });
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-exb-public-key-hash']).toBe(expectedHash(pem));
    expect(response.body).toBe('');
  });

  it.each(['/exb/config-encryption-certificate.der', '/exb/config-encryption-certificate.pem/x', '/exb/config-encryption-certificate'])(
    '%s is not a certificate route',
    async (url) => {
      const response = await t.app.inject({ method: 'GET', url });
      expect(response.statusCode).toBe(404);
    },
  );
});

describe('certificate downloads with a configured certificate', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'exb-configured-certificate-'));
  const { certificatePem } = generateSelfSignedCertificate({ commonName: 'configured', days: 30 });
  let t: TestApp;
  beforeAll(async () => {
    const file = path.join(dir, 'certificate.pem');
    writeFileSync(file, certificatePem);
    t = await createTestApp({ env: { BASE_URL: SERVICE, LMS_URL: LMS, EXB_CONFIG_CERTIFICATE: file } });
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('publishes the configured certificate, not a generated one', async () => {
    const response = await t.app.inject({ method: 'GET', url: PEM_PATH });
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-exb-public-key-hash']).toBe(expectedHash(certificatePem));
    expect(new X509Certificate(response.body).fingerprint256).toBe(new X509Certificate(certificatePem).fingerprint256);
  });
});

describe('certificate downloads with encryption disabled', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { BASE_URL: SERVICE, LMS_URL: LMS, EXB_CONFIG_ENCRYPTION_ENABLED: 'false' } });
  });
  afterAll(() => t.close());

  it.each([PEM_PATH, CER_PATH])('GET %s answers 404', async (url) => {
    const response = await t.app.inject({ method: 'GET', url });
    expect(response.statusCode).toBe(404);
    expect(response.headers['x-exb-public-key-hash']).toBeUndefined();
  });
});
