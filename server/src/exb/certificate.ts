import { X509Certificate, createPublicKey, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import forge from 'node-forge';
import { sha1, sha256Hex } from './hash.js';

export interface ExbCertificate {
  readonly pem: string;
  readonly der: Buffer;
  readonly publicKey: KeyObject;
  /** RSA modulus length in bytes: the size of every `pkhs` ciphertext block. */
  readonly modulusBytes: number;
  /**
   * The 20-byte identifier written into `pkhs`/`phsk` files: SHA-1 of the PKCS#1 RSAPublicKey DER, i.e. the contents of
   * the certificate's subjectPublicKey BIT STRING. Clients look their identity up by exactly these bytes; hashing the
   * whole SubjectPublicKeyInfo would not be found.
   */
  readonly pkhsKeyHash: Buffer;
  /**
   * The published `x-exb-public-key-hash`: lowercase hex SHA-256 of the SubjectPublicKeyInfo DER (algorithm identifier
   * plus key). The contract only says "of the public key"; SPKI is the standard encoding of a public key on its own and
   * what `openssl pkey -pubin -outform DER` hashes, so anyone can recompute it from the downloaded certificate.
   */
  readonly publicKeyHash: string;
}

/** Accepts PEM text, or bytes that are either PEM or DER. Only RSA keys, since the file format encrypts with RSA. */
export function loadCertificate(input: string | Uint8Array): ExbCertificate {
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(typeof input === 'string' ? Buffer.from(input, 'utf8') : input);
  } catch (cause) {
    throw new Error('not a PEM or DER X.509 certificate', { cause });
  }
  const publicKey = x509.publicKey;
  const modulusLength = publicKey.asymmetricKeyDetails?.modulusLength;
  if (publicKey.asymmetricKeyType !== 'rsa' || modulusLength === undefined) {
    throw new Error('the configuration encryption certificate must carry an RSA key');
  }
  return {
    pem: x509.toString(),
    der: x509.raw,
    publicKey,
    modulusBytes: Math.ceil(modulusLength / 8),
    pkhsKeyHash: sha1(publicKey.export({ type: 'pkcs1', format: 'der' })),
    publicKeyHash: sha256Hex(publicKey.export({ type: 'spki', format: 'der' })),
  };
}

export interface GenerateCertificateOptions {
  commonName: string;
  days: number;
}

/** A self-signed RSA-2048 certificate for development and tests; the key is returned as PKCS#8 PEM. */
export function generateSelfSignedCertificate(options: GenerateCertificateOptions): {
  certificatePem: string;
  privateKeyPem: string;
} {
  if (!Number.isInteger(options.days) || options.days < 1) throw new Error('days must be a positive integer');
  if (options.commonName === '') throw new Error('commonName must not be empty');
  // Node generates the key pair natively; node-forge is only needed because Node cannot issue certificates.
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const signingKey = forge.pki.privateKeyFromPem(privateKey.export({ type: 'pkcs1', format: 'pem' }).toString());
  const publicPem = createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }).toString();

  const certificate = forge.pki.createCertificate();
  certificate.publicKey = forge.pki.publicKeyFromPem(publicPem);
  // A leading 0x01 keeps the DER INTEGER positive and of fixed length.
  certificate.serialNumber = `01${randomBytes(15).toString('hex')}`;
  const now = Date.now();
  certificate.validity.notBefore = new Date(now - 60_000);
  certificate.validity.notAfter = new Date(now + options.days * 86_400_000);
  const name = [{ name: 'commonName', value: options.commonName }];
  certificate.setSubject(name);
  certificate.setIssuer(name);
  certificate.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
    // node-forge derives it from the PKCS#1 key with SHA-1, so it equals the pkhs key hash.
    { name: 'subjectKeyIdentifier' },
  ]);
  certificate.sign(signingKey, forge.md.sha256.create());

  return {
    certificatePem: forge.pki.certificateToPem(certificate),
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}
