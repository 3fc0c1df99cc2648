import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/app-config.js';
import { generateSelfSignedCertificate } from '../../src/exb/certificate.js';
import { loadExbCertificate } from '../../src/config/exb-certificate.js';
import { CertificateStore, CertificateUnusableError } from '../../src/exb/certificate-store.js';
import { customCertificate, EC_CERTIFICATE } from './helpers.js';

const dir = mkdtempSync(path.join(tmpdir(), 'exb-certificate-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: string | Buffer): string {
  const target = path.join(dir, name);
  writeFileSync(target, content);
  return target;
}

function loadError(certificatePath: string | undefined): ConfigError {
  try {
    loadExbCertificate({ configEncryptionEnabled: true, certificatePath });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected the certificate to be refused');
}

const DAY = 86_400_000;

describe('CertificateStore start-up checks', () => {
  it('refuses a missing file, naming the variable and the path', () => {
    const missing = path.join(dir, 'missing.pem');
    const error = loadError(missing);
    expect(error.message).toContain('EXB_CONFIG_CERTIFICATE');
    expect(error.message).toContain(missing);
    expect(error.message).toContain('ENOENT');
  });

  it('refuses a file that is not a certificate', () => {
    const error = loadError(file('garbage.pem', 'not a certificate'));
    expect(error.message).toMatch(/EXB_CONFIG_CERTIFICATE: .*garbage\.pem is not usable: not a PEM or DER X\.509 certificate/);
  });

  it('refuses a private key in place of the certificate', () => {
    const { privateKeyPem } = generateSelfSignedCertificate({ commonName: 'key only', days: 1 });
    expect(loadError(file('key.pem', privateKeyPem)).message).toContain('EXB_CONFIG_CERTIFICATE');
  });

  it('refuses a certificate without an RSA key', () => {
    const error = loadError(file('ec.pem', EC_CERTIFICATE));
    expect(error.message).toContain('EXB_CONFIG_CERTIFICATE');
    expect(error.message).toContain('RSA');
  });

  it('refuses an RSA key shorter than 2048 bits', () => {
    const now = Date.now();
    const pem = customCertificate({ modulusLength: 1024, notBefore: new Date(now - DAY), notAfter: new Date(now + DAY) });
    const error = loadError(file('rsa1024.pem', pem));
    expect(error.message).toContain('EXB_CONFIG_CERTIFICATE');
    expect(error.message).toContain('1024-bit');
  });

  it('requires a path while encryption is enabled', () => {
    expect(loadError(undefined).message).toContain('EXB_CONFIG_CERTIFICATE');
  });

  it('reports an unusable file as its own error, without naming a variable', () => {
    const load = () => CertificateStore.load({ configEncryptionEnabled: true, certificatePath: path.join(dir, 'absent.pem') });
    expect(load).toThrow(CertificateUnusableError);
    expect(load).toThrow(/^cannot read .*absent\.pem \(ENOENT\)$/);
  });

  it('loads PEM and DER files and exposes PEM, DER and the public-key hash', () => {
    const { certificatePem } = generateSelfSignedCertificate({ commonName: 'store', days: 30 });
    const fromPem = CertificateStore.load({ configEncryptionEnabled: true, certificatePath: file('ok.pem', certificatePem) });
    const der = fromPem.loaded!.der;
    const fromDer = CertificateStore.load({ configEncryptionEnabled: true, certificatePath: file('ok.cer', der) });
    expect(fromDer.loaded!.publicKeyHash).toBe(fromPem.loaded!.publicKeyHash);
    expect(fromPem.loaded!.publicKeyHash).toMatch(/^[0-9a-f]{64}$/);
    expect(fromPem.loaded!.pem).toContain('BEGIN CERTIFICATE');
    expect(fromPem.ready()).toBe(fromPem.loaded);
  });

  it('loads nothing, not even a broken path, while encryption is disabled', () => {
    const store = CertificateStore.load({ configEncryptionEnabled: false, certificatePath: path.join(dir, 'missing.pem') });
    expect(store.loaded).toBeUndefined();
    expect(store.ready()).toBeUndefined();
    expect(store.unavailableReason()).toBe('encryption-disabled');
  });

  it('resolves EXB_CONFIG_CERTIFICATE through the configuration and reports it by name', () => {
    const config = loadConfig(
      { NODE_ENV: 'test', DATA_DIR: dir, EXB_CONFIG_CERTIFICATE: 'no-such-certificate.pem' },
      { cwd: dir },
    );
    expect(() => loadExbCertificate(config.exb)).toThrow(/EXB_CONFIG_CERTIFICATE: cannot read .*no-such-certificate\.pem/);
  });
});

describe('CertificateStore readiness', () => {
  const now = Date.now();
  const notBefore = new Date(now - 10 * DAY);
  const notAfter = new Date(now + 10 * DAY);
  const pem = customCertificate({ modulusLength: 2048, notBefore, notAfter });
  const store = CertificateStore.load({ configEncryptionEnabled: true, certificatePath: file('window.pem', pem) });

  it('is ready inside the validity period', () => {
    expect(store.unavailableReason(now)).toBeUndefined();
    expect(store.ready(now)?.publicKeyHash).toBe(store.loaded!.publicKeyHash);
  });

  it('is not ready after expiry or before the start of validity, but stays loaded for download', () => {
    expect(store.unavailableReason(notAfter.getTime() + 60_000)).toBe('expired');
    expect(store.ready(notAfter.getTime() + 60_000)).toBeUndefined();
    expect(store.unavailableReason(notBefore.getTime() - 60_000)).toBe('not-yet-valid');
    expect(store.loaded).toBeDefined();
  });

  it('warns at start about a certificate outside its validity period instead of refusing to start', () => {
    const expired = customCertificate({
      modulusLength: 2048,
      notBefore: new Date(now - 10 * DAY),
      notAfter: new Date(now - DAY),
    });
    const warnings: unknown[] = [];
    const loaded = CertificateStore.load(
      { configEncryptionEnabled: true, certificatePath: file('expired.pem', expired) },
      { warn: (...args: unknown[]) => void warnings.push(args) },
    );
    expect(loaded.unavailableReason()).toBe('expired');
    expect(warnings).toHaveLength(1);
  });
});
