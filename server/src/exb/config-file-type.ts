/**
 * The two names a configuration download is served under. The contract's `.exb` file is an `application/octet-stream`;
 * the same bytes are also served as a `.seb` file of type `application/seb`, the file type a stock Safe Exam Browser
 * registers (`SafeExamBrowser.Configuration/ConfigurationData/DataValues.cs`, `ConfigurationFileExtension`,
 * `ConfigurationFileMimeType`).
 *
 * The `.seb` name is the one launch URLs and download links lead to: inside SEB's own browser a link counts as a
 * configuration, and is downloaded and opened as one rather than shown, only when its path or suggested file name ends in
 * `.seb` or its type is `application/seb` (`SafeExamBrowser.Browser/Handlers/RequestHandler.cs` `IsConfigurationFile`,
 * `Handlers/DownloadHandler.cs` `OnBeforeDownload`), and a downloaded `.seb` file opens in SEB from the file manager.
 * The resource loader that follows a `sebs://` link from the operating system checks neither: it treats any answer but
 * `text/html` or `401` as the file (`DataResources/NetworkResourceLoader.cs`).
 */

export interface ConfigFileType {
  readonly extension: '.exb' | '.seb';
  readonly contentType: string;
}

/** The contract's file (Document 3). */
export const EXB_CONFIG_FILE: ConfigFileType = { extension: '.exb', contentType: 'application/octet-stream' };
/** The file type Safe Exam Browser registers; what the service links to. */
export const SEB_CONFIG_FILE: ConfigFileType = { extension: '.seb', contentType: 'application/seb' };

const CONFIG_FILE_TYPES: readonly ConfigFileType[] = [EXB_CONFIG_FILE, SEB_CONFIG_FILE];

/** Splits a requested file name into its stem and file type; `null` for any other extension. */
export function parseConfigFileName(fileName: string): { stem: string; type: ConfigFileType } | null {
  const type = CONFIG_FILE_TYPES.find((candidate) => fileName.endsWith(candidate.extension));
  return type === undefined ? null : { stem: fileName.slice(0, -type.extension.length), type };
}
