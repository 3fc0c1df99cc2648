import { X509Certificate, constants, createPrivateKey, privateDecrypt, publicEncrypt } from 'node:crypto';
import forge from 'node-forge';
import { describe, expect, it } from 'vitest';
import { generateSelfSignedCertificate, loadCertificate } from '../../src/exb/certificate.js';
import { readFixture } from './fixtures.js';

// An EC certificate: valid X.509, but no RSA key to encrypt configurations with.
const EC_CERTIFICATE = `-----BEGIN CERTIFICATE-----
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

function subjectKeyIdentifier(pem: string): string | undefined {
  const extension = forge.pki.certificateFromPem(pem).getExtension('subjectKeyIdentifier') as
    | { subjectKeyIdentifier?: string }
    | undefined;
  return extension?.subjectKeyIdentifier;
}

describe('loadCertificate', () => {
  it('TV-K: key hashes of sebserver-test.cer', () => {
    const certificate = loadCertificate(readFixture('sebserver-test.cer').toString('utf8'));
    expect(certificate.pkhsKeyHash.toString('hex')).toBe('3799dc54415d4587d74d390173eb19c0782fcb7e');
    expect(certificate.publicKeyHash).toBe('7ba2e93a4ab14937204deb97d8e5b26d8e53f5f3c2e2ea8b77506be545359f2c');
    // The wrong variants the note warns about: SHA-1 of the SPKI, SHA-256 of the PKCS#1 key.
    expect(certificate.pkhsKeyHash.toString('hex')).not.toBe('d416e296197883b09cdc5da7b20bf50a0afee5a2');
    expect(certificate.publicKeyHash).not.toBe('485067ece4674add8a5fdc5acdcb874412cb4f4de21707e0ef37cc43c6729df8');
    expect(certificate.modulusBytes).toBe(256);
    expect(subjectKeyIdentifier(certificate.pem)).toBe('3799dc54415d4587d74d390173eb19c0782fcb7e');
  });

  it('loads the same certificate from PEM text, PEM bytes and DER', () => {
    const fromPem = loadCertificate(readFixture('sebserver-test.cer').toString('utf8'));
    const fromPemBytes = loadCertificate(readFixture('sebserver-test.cer'));
    const fromDer = loadCertificate(fromPem.der);
    for (const other of [fromPemBytes, fromDer]) {
      expect(other.der).toEqual(fromPem.der);
      expect(other.pem).toBe(fromPem.pem);
      expect(other.pkhsKeyHash).toEqual(fromPem.pkhsKeyHash);
      expect(other.publicKeyHash).toBe(fromPem.publicKeyHash);
    }
    expect(fromPem.pem).toMatch(/^-----BEGIN CERTIFICATE-----\n/);
    expect(new X509Certificate(fromPem.der).subject).toContain('CN=test.anhefti.sebserver');
  });

  it('rejects non-certificates and non-RSA keys', () => {
    expect(() => loadCertificate('not a certificate')).toThrow(/X\.509/);
    expect(() => loadCertificate(Buffer.from([0x30, 0x03, 0x02, 0x01, 0x00]))).toThrow(/X\.509/);
    expect(() => loadCertificate(EC_CERTIFICATE)).toThrow(/RSA/);
  });
});

describe('generateSelfSignedCertificate', () => {
  it('issues an RSA-2048 certificate that matches its private key', () => {
    const before = Date.now();
    const { certificatePem, privateKeyPem } = generateSelfSignedCertificate({ commonName: 'exb dev', days: 30 });
    const x509 = new X509Certificate(certificatePem);
    expect(x509.subject).toBe('CN=exb dev');
    expect(x509.issuer).toBe('CN=exb dev');
    expect(x509.publicKey.asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect(x509.checkPrivateKey(createPrivateKey(privateKeyPem))).toBe(true);
    expect(x509.verify(x509.publicKey)).toBe(true);
    expect(privateKeyPem).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    const lifetimeDays = (Date.parse(x509.validTo) - before) / 86_400_000;
    expect(lifetimeDays).toBeGreaterThan(29.9);
    expect(lifetimeDays).toBeLessThanOrEqual(30.01);
    expect(Date.parse(x509.validFrom)).toBeLessThanOrEqual(before);

    const certificate = loadCertificate(certificatePem);
    expect(subjectKeyIdentifier(certificatePem)).toBe(certificate.pkhsKeyHash.toString('hex'));
    const secret = Buffer.from('round trip');
    const encrypted = publicEncrypt({ key: certificate.publicKey, padding: constants.RSA_PKCS1_PADDING }, secret);
    expect(privateDecrypt({ key: privateKeyPem, padding: constants.RSA_PKCS1_PADDING }, encrypted)).toEqual(secret);
  });

  it('gives every certificate its own key and serial number', () => {
    const a = new X509Certificate(generateSelfSignedCertificate({ commonName: 'a', days: 1 }).certificatePem);
    const b = new X509Certificate(generateSelfSignedCertificate({ commonName: 'a', days: 1 }).certificatePem);
    expect(a.serialNumber).not.toBe(b.serialNumber);
    expect(loadCertificate(a.raw).publicKeyHash).not.toBe(loadCertificate(b.raw).publicKeyHash);
  });

  it('rejects an invalid lifetime or name', () => {
    expect(() => generateSelfSignedCertificate({ commonName: 'x', days: 0 })).toThrow(/days/);
    expect(() => generateSelfSignedCertificate({ commonName: 'x', days: 1.5 })).toThrow(/days/);
    expect(() => generateSelfSignedCertificate({ commonName: '', days: 1 })).toThrow(/commonName/);
  });
});
