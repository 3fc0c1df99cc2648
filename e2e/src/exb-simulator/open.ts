import {
  computeConfigKey,
  loadCertificate,
  readContainer,
  readPlist,
  type ContainerLayer,
  type DecryptionIdentity,
  type PlistDict,
} from '@exb/server/exb/index.js';

export interface OpenConfigurationOptions {
  /** The certificate and its private key, for files encrypted for a certificate. */
  certificatePem?: string;
  privateKeyPem?: string;
  /** For password-protected settings. */
  password?: string;
  /** Identities loaded once (certificate parsed, key a `KeyObject`), for a reader that opens many files. */
  identities?: readonly DecryptionIdentity[];
}

export interface OpenedConfiguration {
  /** The dictionary exactly as in the file: what the Config Key is computed over. */
  settings: PlistDict;
  configKey: string;
  /** Outermost first, e.g. `['gzip', 'pkhs', 'plnd', 'gzip']`. */
  layers: ContainerLayer[];
  xml: Buffer;
  startUrl: string | undefined;
  quitUrl: string | undefined;
}

/** Reads a downloaded file as the exam browser does and computes the Config Key it would report. */
export function openConfiguration(bytes: Uint8Array, options: OpenConfigurationOptions = {}): OpenedConfiguration {
  const identities: DecryptionIdentity[] = [...(options.identities ?? [])];
  if (options.certificatePem !== undefined || options.privateKeyPem !== undefined) {
    if (options.certificatePem === undefined || options.privateKeyPem === undefined) {
      throw new Error('certificatePem and privateKeyPem go together');
    }
    identities.push({ certificate: loadCertificate(options.certificatePem), privateKey: options.privateKeyPem });
  }
  const { xml, layers } = readContainer(bytes, {
    identities,
    ...(options.password === undefined ? {} : { password: options.password }),
  });
  const settings = readPlist(xml);
  return {
    settings,
    configKey: computeConfigKey(settings),
    layers,
    xml,
    startUrl: stringSetting(settings, 'startURL'),
    quitUrl: stringSetting(settings, 'quitURL'),
  };
}

function stringSetting(settings: PlistDict, key: string): string | undefined {
  const value = settings.get(key);
  return typeof value === 'string' ? value : undefined;
}
