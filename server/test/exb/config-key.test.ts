import { describe, expect, it } from 'vitest';
import {
  assertPortableConfigKeyInput,
  computeConfigKey,
  configKeyHashForUrl,
  configKeyHashMatches,
  configKeyJson,
  formatDotNetReal,
} from '../../src/exb/config-key.js';
import { hashExamBrowserPassword, sha256Hex } from '../../src/exb/hash.js';
import { PlistDate, PlistReal, readPlist, writePlist, type PlistDict, type PlistValue } from '../../src/exb/plist.js';
import { readFixture } from './fixtures.js';

const dict = (entries: [string, PlistValue][]): PlistDict => new Map(entries);
const rule = (action: number, expression: string, regex: boolean): PlistDict =>
  dict([
    ['action', action],
    ['active', true],
    ['expression', expression],
    ['regex', regex],
  ]);

// TV-C1: moodle/moodle mod/quiz/accessrule/seb/tests/quiz_settings_test.php
const MOODLE_XML =
  '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n' +
  '<plist version="1.0"><dict><key>showTaskBar</key><true/><key>allowWlan</key><false/><key>showReloadButton</key><true/>' +
  '<key>showTime</key><false/><key>showInputLanguage</key><true/><key>allowQuit</key><true/><key>quitURLConfirm</key><true/>' +
  '<key>audioControlEnabled</key><true/><key>audioMute</key><false/><key>allowSpellCheck</key><false/>' +
  '<key>browserWindowAllowReload</key><true/><key>URLFilterEnable</key><true/><key>URLFilterEnableContentFilter</key><false/>' +
  '<key>hashedQuitPassword</key><string>9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08</string>' +
  '<key>URLFilterRules</key><array><dict><key>action</key><integer>1</integer><key>active</key><true/><key>expression</key>' +
  '<string>test.com</string><key>regex</key><false/></dict></array><key>startURL</key>' +
  '<string>https://www.example.com/moodle/mod/quiz/view.php?id=1</string><key>sendBrowserExamKey</key><true/>' +
  '<key>browserWindowWebView</key><integer>3</integer><key>examSessionClearCookiesOnStart</key><false/>' +
  '<key>allowPreferencesWindow</key><false/></dict></plist>';

const MOODLE_JSON =
  '{"allowPreferencesWindow":false,"allowQuit":true,"allowSpellCheck":false,"allowWlan":false,"audioControlEnabled":true,' +
  '"audioMute":false,"browserWindowAllowReload":true,"browserWindowWebView":3,"examSessionClearCookiesOnStart":false,' +
  '"hashedQuitPassword":"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08","quitURLConfirm":true,' +
  '"sendBrowserExamKey":true,"showInputLanguage":true,"showReloadButton":true,"showTaskBar":true,"showTime":false,' +
  '"startURL":"https://www.example.com/moodle/mod/quiz/view.php?id=1","URLFilterEnable":true,' +
  '"URLFilterEnableContentFilter":false,"URLFilterRules":[{"action":1,"active":true,"expression":"test.com","regex":false}]}';

const MOODLE_CK = '65ff7a3b8aec80e58fbe2e7968826c33cbf0ac444a748055ebe665829cbf4201';
const LTI_CK = '7f28f3870be4e74b346ac1ed0f1a4354641e1d12aed49eb7c231e7839a315edd';

// TV-C4: an LTI-style configuration
function ltiDict(): PlistDict {
  return dict([
    ['allowQuit', true],
    ['browserWindowAllowReload', true],
    ['browserWindowWebView', 3],
    ['examKeySalt', Uint8Array.from({ length: 32 }, (_, i) => i)],
    ['examSessionClearCookiesOnStart', false],
    ['hashedQuitPassword', '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'],
    ['quitURL', 'https://lti.example.edu/seb/quit?session=abc&done=1'],
    ['quitURLConfirm', false],
    ['sebConfigPurpose', 0],
    ['sendBrowserExamKey', true],
    ['startURL', 'https://canvas.example.edu/courses/42/quizzes/7/take?user_id=9&seb=1'],
    ['URLFilterEnable', true],
    ['URLFilterEnableContentFilter', false],
    [
      'URLFilterRules',
      [
        rule(1, 'canvas.example.edu/courses/42/*', false),
        rule(1, String.raw`^https://lti\.example\.edu/seb/.*$`, true),
        rule(0, '*.example.com', false),
      ],
    ],
  ]);
}

const LTI_JSON = String.raw`{"allowQuit":true,"browserWindowAllowReload":true,"browserWindowWebView":3,"examKeySalt":"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=","examSessionClearCookiesOnStart":false,"hashedQuitPassword":"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08","quitURL":"https://lti.example.edu/seb/quit?session=abc&done=1","quitURLConfirm":false,"sebConfigPurpose":0,"sendBrowserExamKey":true,"startURL":"https://canvas.example.edu/courses/42/quizzes/7/take?user_id=9&seb=1","URLFilterEnable":true,"URLFilterEnableContentFilter":false,"URLFilterRules":[{"action":1,"active":true,"expression":"canvas.example.edu/courses/42/*","regex":false},{"action":1,"active":true,"expression":"^https://lti\.example\.edu/seb/.*$","regex":true},{"action":0,"active":true,"expression":"*.example.com","regex":false}]}`;

describe('Config Key', () => {
  it('TV-C1: Moodle-generated configuration', () => {
    const settings = readPlist(MOODLE_XML);
    expect(configKeyJson(settings)).toBe(MOODLE_JSON);
    expect(computeConfigKey(settings)).toBe(MOODLE_CK);
  });

  it('TV-C1: Moodle variants with content filter and without browserWindowWebView', () => {
    const settings = readPlist(MOODLE_XML);
    settings.set('URLFilterEnableContentFilter', true);
    expect(computeConfigKey(settings)).toBe('d975b8a2ec4472495a8be7c64d7c8cc960dbb62472d5e88a8847ac0e5d77e533');
    settings.delete('browserWindowWebView');
    expect(computeConfigKey(settings)).toBe('58010792504cccc18f7b0e5c9680fe60b567e8c1b5fb9798654cc9bad9ddf30c');
    settings.set('URLFilterEnableContentFilter', false);
    expect(computeConfigKey(settings)).toBe('b35510bd754f9d106ff88b9d2dc1bb297cddc9fc7b4bdde2dbda4e7d9e4b50d8');
  });

  it('TV-C2: real macOS file, exact SEB-JSON from the public fixture', () => {
    const settings = readPlist(readFixture('unencrypted_mac_001.seb'));
    const expectedJson = readFixture('JSON_unencrypted_mac_001.txt').toString('utf8');
    expect(expectedJson).toHaveLength(7635);
    expect(configKeyJson(settings)).toBe(expectedJson);
    expect(computeConfigKey(settings)).toBe('4fa9af8ec8759eb7c680752ef4ee5eaf1a860628608fccae2715d519849f9292');
  });

  it('TV-C3: real Windows file, with and without the two reals of the current fixture', () => {
    const settings = readPlist(readFixture('unencrypted_win_223.seb'));
    expect(settings.has('originatorVersion')).toBe(true);
    expect(computeConfigKey(settings)).toBe('fc6f4ea5922717760f4d6d536c23b8d19bf20b52aa97940f5427a76e20f49026');

    const withReals = new Map<string, PlistValue>([
      ['batteryChargeThresholdCritical', new PlistReal(0.1)],
      ['batteryChargeThresholdLow', new PlistReal(0.2)],
      ...settings,
    ]);
    expect(computeConfigKey(withReals)).toBe('2534e4e9f3188f9f9133bf7cf7b4c5d898292bbd7e8d0230f39d1176636a1431');
  });

  it('TV-C4: LTI-style configuration, including its XML round trip', () => {
    expect(configKeyJson(ltiDict())).toBe(LTI_JSON);
    expect(computeConfigKey(ltiDict())).toBe(LTI_CK);
    const xml = writePlist(ltiDict());
    expect(xml.toString('utf8')).toContain('session=abc&amp;done=1');
    expect(computeConfigKey(readPlist(xml))).toBe(LTI_CK);
  });

  it('TV-C5: originatorVersion and empty dicts are dropped without a trailing comma', () => {
    const spec = '0e8ad4d5d2fdb55a4f3bceb09d3662c68e1403246d44f659844aef10036a3fdf';
    expect(computeConfigKey(dict([['allowQuit', true], ['originatorVersion', 'x']]))).toBe(spec);
    expect(computeConfigKey(dict([['allowQuit', true], ['zzz', new Map()]]))).toBe(spec);
    expect(configKeyJson(dict([['allowQuit', true], ['zzz', new Map()]]))).toBe('{"allowQuit":true}');
    expect(computeConfigKey(new Map())).toBe('44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a');
  });

  it('TV-C5: drops them at every level but keeps empty arrays', () => {
    const nested = dict([['outer', dict([['originatorVersion', 'x'], ['empty', new Map()], ['list', []]])]]);
    expect(configKeyJson(nested)).toBe('{"outer":{"list":[]}}');
  });

  it('TV-C6: strings are not escaped', () => {
    const settings = dict([
      ['quitURL', 'https://a.example/q?x=1&y="2"'],
      ['s', 'a\\b'],
      ['u', 'héllo'],
    ]);
    expect(configKeyJson(settings)).toBe('{"quitURL":"https://a.example/q?x=1&y="2"","s":"a\\b","u":"héllo"}');
    expect(computeConfigKey(settings)).toBe('a11dd686470252d7a2c728571ebd5d1803972ed82a5820e9b58f77b13437a760');
  });

  it('TV-C6: reals in .NET G15 form', () => {
    const settings = dict([
      ['a', new PlistReal(0.1)],
      ['b', new PlistReal(1)],
      ['c', new PlistReal(0.00001)],
      ['d', new PlistReal(1.5)],
      ['e', new PlistReal(1e20)],
      ['f', new PlistReal(0.30000000000000004)],
    ]);
    expect(configKeyJson(settings)).toBe('{"a":0.1,"b":1,"c":1E-05,"d":1.5,"e":1E+20,"f":0.3}');
    expect(computeConfigKey(settings)).toBe('d4fca0d1bb0a7d9f8150c203d2e25fdeb0a5acd8cb8f7561328d97c8f383996a');
  });

  it.each([
    [0.0001, '0.0001'],
    [1e14, '100000000000000'],
    [1e15, '1E+15'],
    [-0, '0'],
    [123456789.123456789, '123456789.123457'],
    [-1.5, '-1.5'],
    [1.5e300, '1.5E+300'],
    [-2.5e-7, '-2.5E-07'],
    [999999999999999.9, '1E+15'],
    [0.1 + 0.2, '0.3'],
  ])('formats %d as %s', (value, text) => {
    expect(formatDotNetReal(value)).toBe(text);
  });

  it('refuses dates and non-finite reals', () => {
    expect(() => configKeyJson(dict([['d', new PlistDate('2020-01-01T00:00:00Z')]]))).toThrow(/date/);
    expect(() => formatDotNetReal(Number.POSITIVE_INFINITY)).toThrow();
  });

  it('sorts keys case-insensitively, digits by code unit, lowercase first on ties', () => {
    const settings = dict([
      ['URLFilterRules', 1],
      ['urlFilterRegex', 2],
      ['enableF2', 3],
      ['enableF10', 4],
      ['allowWLAN', 5],
      ['allowWlan', 6],
      ['Zeta', 7],
      ['alpha', 8],
    ]);
    expect(configKeyJson(settings)).toBe(
      '{"allowWlan":6,"allowWLAN":5,"alpha":8,"enableF10":4,"enableF2":3,"urlFilterRegex":2,"URLFilterRules":1,"Zeta":7}',
    );
  });

  it('TV-P: password hashes', () => {
    expect(hashExamBrowserPassword('test')).toBe('9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08');
    expect(hashExamBrowserPassword('admin')).toBe('8c6976e5b5410415bde908bd4dee15dfb167a9c873fc4bb8a81f6f2ab448a918');
    expect(hashExamBrowserPassword('e\u0301')).toBe(sha256Hex('\u00e9'));
  });
});

describe('per-URL Config Key hash', () => {
  it('TV-H: Moodle quiz page, with and without fragment', () => {
    const expected = '0e83890924908506a906e49e8e2c5325edcfd8cd8753eff2344262fb368588ba';
    expect(configKeyHashForUrl('https://www.example.com/moodle/mod/quiz/view.php?id=1', MOODLE_CK)).toBe(expected);
    expect(configKeyHashForUrl('https://www.example.com/moodle/mod/quiz/view.php?id=1#top', MOODLE_CK)).toBe(expected);
  });

  it('TV-H: LTI quiz page', () => {
    expect(configKeyHashForUrl('https://canvas.example.edu/courses/42/quizzes/7/take?user_id=9&seb=1', LTI_CK)).toBe(
      '18fa5c81fa84c2faebf90f6247c3005c337196fca0155a18bbdc0c583fea875c',
    );
  });

  it('accepts exactly the matching hash', () => {
    const url = 'https://canvas.example.edu/courses/42/quizzes/7/take?user_id=9&seb=1';
    const reported = '18fa5c81fa84c2faebf90f6247c3005c337196fca0155a18bbdc0c583fea875c';
    expect(configKeyHashMatches(reported, url, LTI_CK)).toBe(true);
    expect(configKeyHashMatches(reported.toUpperCase(), url, LTI_CK)).toBe(true);
    expect(configKeyHashMatches(reported, `${url}#section`, LTI_CK)).toBe(true);
    expect(configKeyHashMatches(reported, `${url}&x=1`, LTI_CK)).toBe(false);
    expect(configKeyHashMatches(reported, url, MOODLE_CK)).toBe(false);
    expect(configKeyHashMatches(`${reported.slice(0, 63)}0`, url, LTI_CK)).toBe(false);
    expect(configKeyHashMatches(reported.slice(0, 62), url, LTI_CK)).toBe(false);
    expect(configKeyHashMatches(`${reported}00`, url, LTI_CK)).toBe(false);
    expect(configKeyHashMatches(`${reported.slice(0, 63)}g`, url, LTI_CK)).toBe(false);
    expect(configKeyHashMatches('', url, LTI_CK)).toBe(false);
  });
});

describe('assertPortableConfigKeyInput', () => {
  it('accepts the LTI-style configuration', () => {
    expect(() => assertPortableConfigKeyInput(ltiDict())).not.toThrow();
  });

  it.each<[string, PlistDict]>([
    ['a non-alphanumeric key', dict([['quit-url', 'x']])],
    ['a nested non-alphanumeric key', dict([['rules', [dict([['a_b', 1]])]]])],
    ['keys differing only by case', dict([['allowWlan', true], ['allowWLAN', false]])],
    ['originatorVersion', dict([['originatorVersion', 'x']])],
    ['an empty dict', dict([['proxies', new Map()]])],
    ['a real', dict([['threshold', new PlistReal(0.5)]])],
    ['a date', dict([['when', [new PlistDate('2020-01-01T00:00:00Z')]]])],
  ])('rejects %s', (_name, settings) => {
    expect(() => assertPortableConfigKeyInput(settings)).toThrow(/portable Config Key/);
  });
});
