import { describe, expect, it } from 'vitest';
import { SERVICE_ROUTES, servicePath } from '../src/service-paths.js';

describe('servicePath', () => {
  it('fills named segments in order', () => {
    expect(servicePath(SERVICE_ROUTES.accessProof, ['101', 'classicquiz_201'])).toBe('/api/exb/access-proof/101/classicquiz_201');
    expect(servicePath(SERVICE_ROUTES.exitSession, ['101', 'newquiz_7', 'grant-abc'])).toBe('/exb/exit/session/101/newquiz_7/grant-abc');
  });

  it('fills a wildcard with the remaining segments', () => {
    expect(servicePath(SERVICE_ROUTES.requirement, ['101', 'classicquiz_201'])).toBe('/api/exb/requirement/101/classicquiz_201');
  });

  it('gives a fixed route as it is', () => {
    expect(servicePath(SERVICE_ROUTES.detectorScript)).toBe('/js/lms-exb-detector.js');
  });

  it('refuses too few or too many segments', () => {
    expect(() => servicePath(SERVICE_ROUTES.accessProof, ['101'])).toThrow(RangeError);
    expect(() => servicePath(SERVICE_ROUTES.accessProof, ['101', '201', 'extra'])).toThrow(RangeError);
    expect(() => servicePath(SERVICE_ROUTES.detectorScript, ['x'])).toThrow(RangeError);
    expect(() => servicePath(SERVICE_ROUTES.requirement, [])).toThrow(RangeError);
  });

  it('refuses a segment that would leave its place', () => {
    for (const segment of ['', '.', '..', 'a/b', 'a?b', 'a#b', 'a\\b']) {
      expect(() => servicePath(SERVICE_ROUTES.accessCode, ['101', segment]), segment).toThrow(RangeError);
    }
    // Encoded, the same text stays inside its segment.
    expect(servicePath(SERVICE_ROUTES.accessCode, ['101', encodeURIComponent('a/b')])).toBe('/api/exb/access-code/101/a%2Fb');
  });

  it('lists only absolute paths without query or fragment', () => {
    for (const [name, route] of Object.entries(SERVICE_ROUTES)) expect(route.path, name).toMatch(/^\/[^?#\s]*$/);
  });
});
