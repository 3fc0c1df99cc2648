import { parseDetectorConfig, type DetectorConfig } from '@exb/shared/detector-config-rules.js';

// The server replaces this identifier, the only occurrence in each bundle, with a JSON object literal.
declare const __EXB_DETECTOR_CONFIG__: unknown;

/** The injected configuration, or `null` when the bundle was served without one or with an invalid one. */
export function readInjectedConfig(): DetectorConfig | null {
  let injected: unknown;
  try {
    injected = __EXB_DETECTOR_CONFIG__;
  } catch {
    // An unreplaced marker is an undeclared identifier and throws.
    return null;
  }
  return parseDetectorConfig(injected);
}
