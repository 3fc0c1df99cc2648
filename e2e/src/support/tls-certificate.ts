import { createPublicKey, generateKeyPairSync, randomBytes } from 'node:crypto';
import forge from 'node-forge';

export interface TlsCertificate {
  /** PEM certificate; trust it (it is its own issuer) to reach the server without disabling verification. */
  cert: string;
  /** PEM private key (PKCS#8). */
  key: string;
}

/**
 * A self-signed TLS server certificate for `localhost` and `127.0.0.1`, valid for a day: browser tests serve the
 * development LMS over HTTPS with it. Node issues the key pair; node-forge only writes the certificate.
 */
export function localhostTlsCertificate(): TlsCertificate {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const signingKey = forge.pki.privateKeyFromPem(privateKey.export({ type: 'pkcs1', format: 'pem' }).toString());
  const certificate = forge.pki.createCertificate();
  certificate.publicKey = forge.pki.publicKeyFromPem(createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }).toString());
  // A leading 0x01 keeps the DER INTEGER positive.
  certificate.serialNumber = `01${randomBytes(15).toString('hex')}`;
  const now = Date.now();
  certificate.validity.notBefore = new Date(now - 60_000);
  certificate.validity.notAfter = new Date(now + 86_400_000);
  const name = [{ name: 'commonName', value: 'localhost' }];
  certificate.setSubject(name);
  certificate.setIssuer(name);
  certificate.setExtensions([
    // Its own trust anchor: OpenSSL accepts a self-signed certificate in the trust store only as a CA.
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, keyCertSign: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    {
      name: 'subjectAltName',
      altNames: [
        { type: 2, value: 'localhost' },
        { type: 7, ip: '127.0.0.1' },
      ],
    },
  ]);
  certificate.sign(signingKey, forge.md.sha256.create());
  return { cert: forge.pki.certificateToPem(certificate), key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}
