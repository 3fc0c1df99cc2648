import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import { loadCertificate, type ExbCertificate } from './certificate.js';

/** Smaller RSA keys are no longer considered safe for protecting configurations in transit. */
export const MIN_CERTIFICATE_MODULUS_BITS = 2048;

/**
 * A configured certificate that cannot be used: unreadable, not a certificate, or too weak. The message names the file
 * and the problem; the configuration layer adds the variable that named the file.
 */
export class CertificateUnusableError extends Error {
  override name = 'CertificateUnusableError';
}

export interface CertificateStoreOptions {
  configEncryptionEnabled: boolean;
  /** Resolved path of the PEM (or DER) certificate; absent when encryption is off. */
  certificatePath: string | undefined;
}

/** Why no configuration can be encrypted right now; `undefined` from {@link CertificateStore.unavailableReason} means ready. */
export type CertificateUnavailableReason = 'encryption-disabled' | 'not-loaded' | 'not-yet-valid' | 'expired';

/**
 * The certificate configurations are encrypted for, read once at start. A configured certificate that cannot be used
 * stops the start (as {@link CertificateUnusableError}), so an operator never runs a service that silently serves
 * unencrypted or unreadable configurations.
 */
export class CertificateStore {
  private constructor(
    readonly enabled: boolean,
    private readonly certificate: ExbCertificate | undefined,
    private readonly notBefore: number,
    private readonly notAfter: number,
  ) {}

  /** Warns (rather than refusing to start) about a certificate outside its validity period: renewing it is the fix. */
  static load(options: CertificateStoreOptions, logger?: Pick<Logger, 'warn'>): CertificateStore {
    const store = CertificateStore.read(options);
    const reason = store.unavailableReason();
    if (reason === 'expired' || reason === 'not-yet-valid') {
      logger?.warn(
        { certificatePath: options.certificatePath, reason },
        'the configuration encryption certificate is outside its validity period; exam-browser configurations will not be served',
      );
    }
    return store;
  }

  private static read(options: CertificateStoreOptions): CertificateStore {
    if (!options.configEncryptionEnabled) return new CertificateStore(false, undefined, 0, 0);
    const file = options.certificatePath;
    if (file === undefined) throw new CertificateUnusableError('a certificate is required while encryption is enabled');
    let bytes: Buffer;
    try {
      bytes = readFileSync(file);
    } catch (error) {
      throw new CertificateUnusableError(`cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    return CertificateStore.fromBytes(bytes, file);
  }

  /** `source` only names the certificate in error messages. */
  static fromBytes(bytes: Uint8Array, source = 'the certificate'): CertificateStore {
    let certificate: ExbCertificate;
    try {
      certificate = loadCertificate(bytes);
    } catch (error) {
      throw new CertificateUnusableError(`${source} is not usable: ${(error as Error).message}`);
    }
    const bits = certificate.modulusBytes * 8;
    if (bits < MIN_CERTIFICATE_MODULUS_BITS) {
      throw new CertificateUnusableError(
        `${source} has a ${bits}-bit RSA key; at least ${MIN_CERTIFICATE_MODULUS_BITS} bits are required`,
      );
    }
    const x509 = new X509Certificate(certificate.der);
    return new CertificateStore(true, certificate, Date.parse(x509.validFrom), Date.parse(x509.validTo));
  }

  /** The certificate whatever its validity: what is published for download. */
  get loaded(): ExbCertificate | undefined {
    return this.certificate;
  }

  /**
   * Checked on every response that depends on the certificate: a certificate that expires while the service runs must
   * stop configurations from being served, even ones encrypted and cached while it was still valid.
   */
  unavailableReason(now = Date.now()): CertificateUnavailableReason | undefined {
    if (!this.enabled) return 'encryption-disabled';
    if (this.certificate === undefined) return 'not-loaded';
    if (now < this.notBefore) return 'not-yet-valid';
    if (now > this.notAfter) return 'expired';
    return undefined;
  }

  /** The certificate when configurations can be encrypted for it now, else `undefined`. */
  ready(now = Date.now()): ExbCertificate | undefined {
    return this.unavailableReason(now) === undefined ? this.certificate : undefined;
  }
}
