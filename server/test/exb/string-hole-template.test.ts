import { describe, expect, it } from 'vitest';
import { computeConfigKey } from '../../src/exb/config-key.js';
import { writePlist, type PlistDict } from '../../src/exb/plist.js';
import { serializeSettings, stringHoleTemplate } from '../../src/exb/string-hole-template.js';

const dict = (entries: [string, string | number | boolean][]): PlistDict => new Map(entries);
const HOLE = 'https://lms.example/hole';
const PROBE = 'https://lms.example/probe?a=1&b=2';

describe('string-hole templates', () => {
  it('fills a value into the XML and the Config Key JSON as a full serialization would', () => {
    const build = (value: string) => dict([['allowQuit', true], ['startURL', value], ['zeta', 3]]);
    const template = stringHoleTemplate(build, HOLE, PROBE);
    expect(template).not.toBeNull();
    for (const value of ['https://lms.example/x?y=<1>&z=\r', 'https://lms.example/ä', 'x']) {
      const filled = template!.fill(value);
      expect(filled.xml.equals(writePlist(build(value)))).toBe(true);
      expect(filled.configKey).toBe(computeConfigKey(build(value)));
      expect(filled).toEqual(serializeSettings(build(value)));
    }
    // An empty string is written as `<string/>`, which no cut template can produce.
    expect(() => template!.fill('')).toThrow(RangeError);
  });

  it('has no template when the value is written twice or something else derives from it', () => {
    expect(stringHoleTemplate((value) => dict([['a', value], ['b', value]]), HOLE, PROBE)).toBeNull();
    expect(stringHoleTemplate((value) => dict([['a', value], ['length', value.length]]), HOLE, PROBE)).toBeNull();
    expect(stringHoleTemplate((value) => dict([['a', value], ['b', value.toUpperCase()]]), HOLE, PROBE)).toBeNull();
    expect(stringHoleTemplate(() => dict([['a', 'constant']]), HOLE, PROBE)).toBeNull();
  });
});
