import { describe, expect, it } from 'vitest';
import { launchTargetFromPath, parseTargetLinkUri } from '../../src/lti/launch-target.js';

const base = 'https://tool.example.test';

describe('launch targets', () => {
  it('parses the two launch paths', () => {
    expect(parseTargetLinkUri(`${base}/lti/launch`, base)).toEqual({ kind: 'lti', path: '/lti/launch' });
    expect(parseTargetLinkUri(`${base}/exb/launch/classicquiz_7`, base)).toEqual({
      kind: 'exb',
      path: '/exb/launch/classicquiz_7',
      contentId: 'classicquiz_7',
    });
  });

  it('gives percent-encoded and literal content ids the same canonical path', () => {
    expect(parseTargetLinkUri(`${base}/exb/launch/newquiz%3A101%3A301`, base)?.path).toBe('/exb/launch/newquiz:101:301');
    expect(launchTargetFromPath('/exb/launch/newquiz:101:301')?.path).toBe('/exb/launch/newquiz:101:301');
  });

  it('refuses a target longer than 2048 characters even on the right path', () => {
    const long = `${base}/lti/launch`.padEnd(2049, 'x');
    expect(parseTargetLinkUri(long, base)).toBeNull();
  });

  it.each(['', '/lti/launch', 'not a url', `${base}/lti/launch?`, `${base}/lti/launch#`, `${base}/exb/launch/%E0%A4%A`])(
    'refuses %j',
    (value) => {
      expect(parseTargetLinkUri(value, base)).toBeNull();
    },
  );

  it('refuses non-strings', () => {
    expect(parseTargetLinkUri(undefined, base)).toBeNull();
    expect(parseTargetLinkUri(['x'], base)).toBeNull();
  });
});
