import { z } from 'zod';
import {
  DETECTOR_CONFIG_LIMITS,
  isConfigIdentifier,
  normalizeServiceBaseUrl,
  type DetectorConfig,
} from './detector-config-rules.js';

export {
  DETECTOR_CONFIG_MARKER,
  DETECTOR_CONFIG_LIMITS,
  injectDetectorConfig,
  normalizeServiceBaseUrl,
  parseDetectorConfig,
  serializeDetectorConfig,
  type DetectorConfig,
} from './detector-config-rules.js';
import { parseDetectorMessages, type DetectorMessages } from './detector-messages.js';

export { parseDetectorMessages, type DetectorMessageKey, type DetectorMessages } from './detector-messages.js';

const identifierSchema = z.string().refine(isConfigIdentifier, 'Expected 1 to 255 characters without control characters');

/**
 * The injected configuration as the server builds it. Agrees with `parseDetectorConfig`, which the browser bundles use
 * without zod; `baseUrl` must already be normalized with `normalizeServiceBaseUrl`.
 */
export const detectorConfigSchema: z.ZodType<DetectorConfig> = z.strictObject({
  baseUrl: z
    .string()
    .max(DETECTOR_CONFIG_LIMITS.baseUrlLength)
    .refine((value) => normalizeServiceBaseUrl(value) === value, 'Expected a normalized HTTP(S) base URL'),
  ltiClientId: identifierSchema,
  deploymentIds: z.array(identifierSchema).max(DETECTOR_CONFIG_LIMITS.deploymentIds),
  debug: z.boolean(),
  diagnostics: z.boolean(),
  // The browser's validator, so both accept exactly the same prompts.
  messages: z.custom<DetectorMessages>((value) => parseDetectorMessages(value) !== null, 'Expected the prompts of every supported language').optional(),
});
