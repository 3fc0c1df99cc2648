import { describe, expect, it } from 'vitest';
import * as shared from '../src/index.js';

describe('package entry', () => {
  it('exports the shared rules and schemas', () => {
    for (const name of [
      'parseContentId',
      'formatContentId',
      'normalizeContentId',
      'contentIdMatchesCourse',
      'contentIdSchema',
      'contentIdParamSchema',
      'matchAssessmentPage',
      'matchLmsPage',
      'isBase64UrlToken',
      'base64UrlTokenSchema',
      'DETECTOR_CONFIG_MARKER',
      'detectorConfigSchema',
      'injectDetectorConfig',
    ]) {
      expect(shared, name).toHaveProperty(name);
    }
    expect(shared.DETECTOR_CONFIG_MARKER).toBe('__EXB_DETECTOR_CONFIG__');
  });
});
