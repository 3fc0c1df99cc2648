/**
 * An independent reader of what the service hands the exam browser: downloads configurations as the browser does,
 * decrypts them with a certificate's private key, computes the Config Key, and provides the page API pages read.
 */
export { ConfigurationDownloadError, downloadConfiguration, SIMULATOR_USER_AGENT } from './download.js';
export type { DownloadedConfiguration, DownloadOptions, DownloadRequest } from './download.js';
export { openConfiguration } from './open.js';
export { fetchUrlFor, isRegisteredLaunchUrl } from './schemes.js';
export type { OpenConfigurationOptions, OpenedConfiguration } from './open.js';
export { configKeyHashFor, SimulatedExamBrowser } from './page-api.js';
export type {
  ExamBrowserPageApi,
  ExamBrowserPlatform,
  ExamBrowserSecurityApi,
  SimulatedExamBrowserOptions,
} from './page-api.js';
