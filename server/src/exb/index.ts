export { PlistDate, PlistError, PlistReal, readPlist, writePlist } from './plist.js';
export type { PlistDict, PlistValue } from './plist.js';
export {
  assertPortableConfigKeyInput,
  computeConfigKey,
  configKeyHashForUrl,
  configKeyHashMatches,
  configKeyJson,
  formatDotNetReal,
} from './config-key.js';
export {
  RncryptorError,
  rncryptorDecrypt,
  rncryptorEncrypt,
  rncryptorEncryptWithKeys,
  rncryptorKey,
  rncryptorPrepareKeys,
} from './rncryptor.js';
export type { RncryptorKeys, RncryptorParameters } from './rncryptor.js';
export { ContainerError, readContainer, writeContainer } from './container.js';
export type {
  ContainerLayer,
  ContainerPrefix,
  DecryptionIdentity,
  ReadContainerOptions,
  ReadContainerResult,
  WriteContainerOptions,
} from './container.js';
export { generateSelfSignedCertificate, loadCertificate } from './certificate.js';
export type { ExbCertificate, GenerateCertificateOptions } from './certificate.js';
export { buildExamSettings, examSettingsInputSchema, prepareExamSettings } from './settings.js';
export type { ExamSettingsInput, ExamTool } from './settings.js';
export { hashExamBrowserPassword } from './hash.js';
