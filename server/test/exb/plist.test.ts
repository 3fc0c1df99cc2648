import { describe, expect, it } from 'vitest';
import { PlistDate, PlistError, PlistReal, readPlist, writePlist, type PlistDict, type PlistValue } from '../../src/exb/plist.js';
import { readFixture } from './fixtures.js';

const wrap = (body: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<plist version="1.0">${body}</plist>`;

function sample(): PlistDict {
  return new Map<string, PlistValue>([
    ['startURL', 'https://lms.example/courses/1/quizzes/2/take?user_id=9&seb=1'],
    ['escaped', `a&b<c>d"e'f]]>g`],
    ['carriageReturn', 'line1\r\nline2\rline3\n'],
    ['unicode', 'héllo 中文 😀'],
    ['empty', ''],
    ['spaces', '  padded  '],
    ['count', 42],
    ['negative', -2147483648],
    ['maximum', 2147483647],
    ['yes', true],
    ['no', false],
    ['salt', new Uint8Array([0, 1, 2, 253, 254, 255])],
    ['nothing', new Uint8Array()],
    ['list', ['x', 1, [true], new Map([['inner', 'y']])]],
    ['emptyList', []],
    ['emptyDict', new Map()],
    ['nested', new Map([['deep', new Map([['deeper', 'z']])]])],
  ]);
}

describe('writePlist', () => {
  it('starts with "<?xml" and has no BOM', () => {
    const bytes = writePlist(sample());
    expect(bytes.subarray(0, 5).toString('latin1')).toBe('<?xml');
    expect(bytes[0]).toBe(0x3c);
    expect(bytes.toString('utf8')).toContain('<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN"');
    expect(bytes.toString('utf8')).toContain('<plist version="1.0">');
  });

  it('escapes XML markup and keeps carriage returns as references', () => {
    const xml = writePlist(sample()).toString('utf8');
    expect(xml).toContain('<string>a&amp;b&lt;c&gt;d"e\'f]]&gt;g</string>');
    expect(xml).toContain('<string>https://lms.example/courses/1/quizzes/2/take?user_id=9&amp;seb=1</string>');
    expect(xml).toContain('<string>line1&#13;\nline2&#13;line3\n</string>');
    expect(xml).toContain('<string/>');
    expect(xml).toContain('<data>AAEC/f7/</data>');
    expect(xml).toContain('<integer>-2147483648</integer>');
    expect(xml).toContain('<array/>');
  });

  it('round-trips every written type unchanged', () => {
    expect(readPlist(writePlist(sample()))).toEqual(sample());
  });

  it('escapes keys', () => {
    const dict: PlistDict = new Map([['a<b&c', 1]]);
    expect(writePlist(dict).toString('utf8')).toContain('<key>a&lt;b&amp;c</key>');
    expect(readPlist(writePlist(dict))).toEqual(dict);
  });

  it('refuses values the clients cannot read or hash alike', () => {
    const fails = (value: unknown) => () => writePlist(new Map([['k', value as string]]));
    expect(fails(2147483648)).toThrow(PlistError);
    expect(fails(-2147483649)).toThrow(PlistError);
    expect(fails(1.5)).toThrow(PlistError);
    expect(fails(Number.NaN)).toThrow(PlistError);
    expect(fails(new PlistReal(0.1))).toThrow(PlistError);
    expect(fails(new PlistDate('2020-01-01T00:00:00Z'))).toThrow(PlistError);
    expect(fails('bell\u0007')).toThrow(PlistError);
    expect(fails('lone \ud800 surrogate')).toThrow(PlistError);
    expect(fails('\ufffe')).toThrow(PlistError);
  });
});

describe('readPlist', () => {
  it('reads the published Moodle test configuration (TV-C1 input)', () => {
    const dict = readPlist(
      '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n' +
        '<plist version="1.0"><dict><key>allowQuit</key><true/><key>URLFilterRules</key><array><dict><key>action</key>' +
        '<integer>1</integer><key>active</key><true/><key>expression</key><string>test.com</string><key>regex</key><false/>' +
        '</dict></array><key>browserWindowWebView</key><integer>3</integer></dict></plist>',
    );
    expect(dict).toEqual(
      new Map<string, unknown>([
        ['allowQuit', true],
        [
          'URLFilterRules',
          [
            new Map<string, unknown>([
              ['action', 1],
              ['active', true],
              ['expression', 'test.com'],
              ['regex', false],
            ]),
          ],
        ],
        ['browserWindowWebView', 3],
      ]),
    );
  });

  it('decodes references, CDATA and comments, and normalizes line ends', () => {
    const dict = readPlist(
      wrap(
        '<!-- c --><dict>\r\n<key>a</key><string>&#65;&#x42;&lt;&gt;&amp;&quot;&apos;</string>' +
          '<key>b</key><string><![CDATA[<raw & text>]]> tail</string>' +
          '<key>c</key><string>x\r\ny\rz&#13;</string>' +
          '<key>d</key><string></string>' +
          '<key>e</key><data>\n  AAEC\n  AwQ=\n</data>' +
          '<key>f</key><integer> -7 </integer>' +
          '<key>g</key><real>0.1</real>' +
          '<key>h</key><date>2020-01-01T00:00:00Z</date>' +
          '<key>i</key><true></true>' +
          '<key>j</key><dict/>' +
          '<key>k</key><array/>' +
          '<key>l</key><data/>' +
          '</dict>\n<!-- end -->\n',
      ),
    );
    expect(dict.get('a')).toBe('AB<>&"\'');
    expect(dict.get('b')).toBe('<raw & text> tail');
    expect(dict.get('c')).toBe('x\ny\nz\r');
    expect(dict.get('d')).toBe('');
    expect(dict.get('e')).toEqual(new Uint8Array([0, 1, 2, 3, 4]));
    expect(dict.get('f')).toBe(-7);
    expect(dict.get('g')).toEqual(new PlistReal(0.1));
    expect(dict.get('h')).toEqual(new PlistDate('2020-01-01T00:00:00Z'));
    expect(dict.get('i')).toBe(true);
    expect(dict.get('j')).toEqual(new Map());
    expect(dict.get('k')).toEqual([]);
    expect(dict.get('l')).toEqual(new Uint8Array());
  });

  it('requires the document to start with "<?xml", as the clients do', () => {
    const xml = wrap('<dict/>');
    expect(readPlist(xml)).toEqual(new Map());
    expect(() => readPlist(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(xml)]))).toThrow(/start with/);
    expect(() => readPlist(` ${xml}`)).toThrow(/start with/);
  });

  it.each([
    ['a root that is not a dict', wrap('<array/>')],
    ['an unknown element', wrap('<dict><key>a</key><thing/></dict>')],
    ['a duplicate key', wrap('<dict><key>a</key><true/><key>a</key><false/></dict>')],
    ['a value without key', wrap('<dict><true/></dict>')],
    ['content after the root', `${wrap('<dict/>')}<x/>`],
    ['two root values', wrap('<dict/><dict/>')],
    ['an unknown entity', wrap('<dict><key>a</key><string>&nbsp;</string></dict>')],
    ['a bare ampersand', wrap('<dict><key>a</key><string>a & b</string></dict>')],
    ['a forbidden character reference', wrap('<dict><key>a</key><string>&#1;</string></dict>')],
    ['invalid base64', wrap('<dict><key>a</key><data>AB$=</data></dict>')],
    ['a non-integer', wrap('<dict><key>a</key><integer>1.5</integer></dict>')],
    ['an unsafe integer', wrap('<dict><key>a</key><integer>9007199254740993</integer></dict>')],
    ['an empty real', wrap('<dict><key>a</key><real/></dict>')],
    ['markup inside a string', wrap('<dict><key>a</key><string>x<b/>y</string></dict>')],
    ['mismatched end tags', wrap('<dict><key>a</key><string>x</key></dict>')],
    ['a truncated document', wrap('<dict><key>a</key><string>x').replace('</plist>', '')],
    ['an internal DTD subset', '<?xml version="1.0"?><!DOCTYPE plist [<!ENTITY x "y">]><plist><dict/></plist>'],
    ['no plist element', '<?xml version="1.0"?><dict/>'],
  ])('rejects %s', (_name, xml) => {
    expect(() => readPlist(xml)).toThrow(PlistError);
  });

  it('rejects invalid UTF-8', () => {
    const bytes = Buffer.concat([Buffer.from(wrap('<dict><key>a</key><string>')), Buffer.from([0xc3, 0x28]), Buffer.from('</string></dict></plist>')]);
    expect(() => readPlist(bytes)).toThrow(/UTF-8/);
  });

  it.each(['unencrypted_mac_001.seb', 'unencrypted_win_223.seb'])('reads %s and round-trips it', (name) => {
    const dict = readPlist(readFixture(name));
    expect(dict.size).toBeGreaterThan(100);
    expect(readPlist(writePlist(dict))).toEqual(dict);
  });

  it('keeps raw backslashes and nested dictionaries of a real macOS file', () => {
    const dict = readPlist(readFixture('unencrypted_mac_001.seb'));
    expect(dict.get('proxies')).toBeInstanceOf(Map);
    expect(dict.get('browserMessagingSocket')).toBe('ws:\\localhost:8706');
  });
});
