import { constants, privateDecrypt, publicEncrypt, randomBytes } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateSelfSignedCertificate, loadCertificate, type ExbCertificate } from '../../src/exb/certificate.js';
import { computeConfigKey } from '../../src/exb/config-key.js';
import { ContainerError, readContainer, writeContainer, type DecryptionIdentity } from '../../src/exb/container.js';
import { hashExamBrowserPassword } from '../../src/exb/hash.js';
import { readPlist, writePlist, type PlistDict, type PlistValue } from '../../src/exb/plist.js';
import { rncryptorDecrypt, rncryptorEncrypt } from '../../src/exb/rncryptor.js';
import { readFixture } from './fixtures.js';

const ascii = (text: string) => Buffer.from(text, 'latin1');

function makeIdentity(commonName: string): DecryptionIdentity {
  const { certificatePem, privateKeyPem } = generateSelfSignedCertificate({ commonName, days: 1 });
  return { certificate: loadCertificate(certificatePem), privateKey: privateKeyPem };
}

function sampleSettings(extra = 0): PlistDict {
  return new Map<string, PlistValue>([
    ['startURL', 'https://canvas.example.edu/courses/42/quizzes/7/take?user_id=9&seb=1'],
    ['sendBrowserExamKey', true],
    ['browserWindowWebView', 3],
    // Incompressible bytes make the inner block span several RSA blocks.
    ['examKeySalt', new Uint8Array(randomBytes(32 + extra))],
  ]);
}

let identity: DecryptionIdentity;
let other: DecryptionIdentity;

beforeAll(() => {
  identity = makeIdentity('exb test identity');
  other = makeIdentity('another identity');
});

describe('readContainer with the public fixtures', () => {
  it.each([
    ['encrypted.seb', 'test', '7984a9902c95098e0d992fd1e5f2ce4a6cf40a613d61dfd805f43100ce2ec14d', 21181],
    ['importTest_123.seb', '123', '781f50bba263f01a05ceca47d3430cd9657a683315ee507cc257ab21bcd788c9', 26534],
  ])('TV-F: %s opens with its password and has the expected Config Key', (name, password, configKey, xmlLength) => {
    const { xml, layers } = readContainer(readFixture(name), { password });
    expect(layers).toEqual(['gzip', 'pswd', 'gzip']);
    expect(xml).toHaveLength(xmlLength);
    expect(computeConfigKey(readPlist(xml))).toBe(configKey);
  });

  it('TV-F: a wrong or missing password fails', () => {
    expect(() => readContainer(readFixture('encrypted.seb'), { password: 'tEst' })).toThrow(ContainerError);
    expect(() => readContainer(readFixture('encrypted.seb'))).toThrow(/password-protected/);
  });

  it.each([
    ['unencrypted_mac_001.seb', '4fa9af8ec8759eb7c680752ef4ee5eaf1a860628608fccae2715d519849f9292'],
    ['unencrypted_win_223.seb', 'fc6f4ea5922717760f4d6d536c23b8d19bf20b52aa97940f5427a76e20f49026'],
  ])('reads the plain XML file %s', (name, configKey) => {
    const { xml, layers } = readContainer(readFixture(name));
    expect(layers).toEqual([]);
    expect(computeConfigKey(readPlist(xml))).toBe(configKey);
  });

  it('re-encrypts a fixture into every layout with an unchanged Config Key', () => {
    const original = readPlist(readContainer(readFixture('importTest_123.seb'), { password: '123' }).xml);
    const xml = writePlist(original);
    for (const options of [{}, { password: 'pw' }, { certificate: identity.certificate }, { password: 'pw', certificate: identity.certificate }]) {
      const read = readContainer(writeContainer(xml, options), { password: 'pw', identities: [identity] });
      const dict = readPlist(read.xml);
      expect(dict).toEqual(original);
      expect(computeConfigKey(dict)).toBe('781f50bba263f01a05ceca47d3430cd9657a683315ee507cc257ab21bcd788c9');
    }
  });
});

describe('writeContainer', () => {
  it('writes plnd as gzip("plnd" || gzip(xml))', () => {
    const xml = writePlist(sampleSettings());
    const file = writeContainer(xml);
    const block = gunzipSync(file);
    expect(block.subarray(0, 4).toString('latin1')).toBe('plnd');
    expect(gunzipSync(block.subarray(4))).toEqual(xml);
    expect(writeContainer(xml)).toEqual(file);
    expect(readContainer(file)).toEqual({ xml, layers: ['gzip', 'plnd', 'gzip'] });
  });

  it('writes pswd as gzip("pswd" || RNCryptor v3(password, gzip(xml)))', () => {
    const xml = writePlist(sampleSettings());
    const block = gunzipSync(writeContainer(xml, { password: 'exam-Pa55' }));
    expect(block.subarray(0, 4).toString('latin1')).toBe('pswd');
    expect(block.subarray(4, 6)).toEqual(Buffer.from([3, 1]));
    expect(gunzipSync(rncryptorDecrypt(block.subarray(4), 'exam-Pa55'))).toEqual(xml);
  });

  it.each([
    ['plnd', undefined],
    ['pswd', 'exam-Pa55'],
  ])('writes pkhs around a %s block: key hash, then whole RSA-2048 PKCS#1 v1.5 blocks', (inner, password) => {
    const xml = writePlist(sampleSettings(600));
    const block = gunzipSync(writeContainer(xml, { password, certificate: identity.certificate }));
    expect(block.subarray(0, 4).toString('latin1')).toBe('pkhs');
    expect(block.subarray(4, 24)).toEqual(identity.certificate.pkhsKeyHash);
    const ciphertext = block.subarray(24);
    expect(ciphertext.length % 256).toBe(0);
    expect(ciphertext.length / 256).toBeGreaterThan(2);
    const plaintext: Buffer[] = [];
    for (let offset = 0; offset < ciphertext.length; offset += 256) {
      const chunk = privateDecrypt(
        { key: identity.privateKey, padding: constants.RSA_PKCS1_PADDING },
        ciphertext.subarray(offset, offset + 256),
      );
      expect(chunk.length).toBeLessThanOrEqual(256 - 32);
      plaintext.push(chunk);
    }
    const innerBlock = Buffer.concat(plaintext);
    expect(innerBlock.subarray(0, 4).toString('latin1')).toBe(inner);
    const payload = innerBlock.subarray(4);
    expect(gunzipSync(password === undefined ? payload : rncryptorDecrypt(payload, password))).toEqual(xml);

    const read = readContainer(writeContainer(xml, { password, certificate: identity.certificate }), {
      password,
      identities: [other, identity],
    });
    expect(read).toEqual({ xml, layers: ['gzip', 'pkhs', inner, 'gzip'] });
  });

  it('round-trips dictionary and Config Key through every layout', () => {
    const settings = sampleSettings();
    const configKey = computeConfigKey(settings);
    for (const options of [{}, { password: 'pw' }, { certificate: identity.certificate }, { password: 'pw', certificate: identity.certificate }]) {
      const { xml } = readContainer(writeContainer(writePlist(settings), options), { password: 'pw', identities: [identity] });
      expect(readPlist(xml)).toEqual(settings);
      expect(computeConfigKey(readPlist(xml))).toBe(configKey);
    }
  });

  it('refuses input that is not XML and passwords that are not printable ASCII', () => {
    const xml = writePlist(sampleSettings());
    expect(() => writeContainer(Buffer.from('plain text'))).toThrow(ContainerError);
    expect(() => writeContainer(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), xml]))).toThrow(ContainerError);
    expect(() => writeContainer(xml, { password: '' })).toThrow(/ASCII/);
    expect(() => writeContainer(xml, { password: 'pässwort' })).toThrow(/ASCII/);
    expect(() => writeContainer(xml, { password: 'tab\there' })).toThrow(/ASCII/);
  });
});

describe('readContainer rejects', () => {
  let xml: Buffer;
  beforeAll(() => {
    xml = writePlist(sampleSettings());
  });

  it('a pkhs file for another certificate, by its key hash', () => {
    const file = writeContainer(xml, { certificate: identity.certificate });
    expect(() => readContainer(file, { identities: [other] })).toThrow(/no certificate matches the key hash/);
    expect(() => readContainer(file)).toThrow(/no certificate matches the key hash/);
  });

  it('a pkhs file whose key hash was swapped for that of another certificate', () => {
    const block = gunzipSync(writeContainer(xml, { certificate: identity.certificate }));
    other.certificate.pkhsKeyHash.copy(block, 4);
    expect(() => readContainer(gzipSync(block), { identities: [other] })).toThrow(ContainerError);
  });

  it('a pswd payload with one flipped byte (HMAC)', () => {
    const block = gunzipSync(writeContainer(xml, { password: 'pw' }));
    block[60]! ^= 0x01;
    expect(() => readContainer(gzipSync(block), { password: 'pw' })).toThrow(/decrypt/);
  });

  it('a pkhs block with a truncated or modified ciphertext', () => {
    const block = gunzipSync(writeContainer(xml, { password: 'pw', certificate: identity.certificate }));
    const options = { password: 'pw', identities: [identity] };
    expect(() => readContainer(gzipSync(block.subarray(0, block.length - 1)), options)).toThrow(/RSA blocks/);
    const tampered = Buffer.from(block);
    tampered[100]! ^= 0x01;
    expect(() => readContainer(gzipSync(tampered), options)).toThrow(ContainerError);
  });

  it("the Windows serializer's gzip(gzip(\"plnd\" || xml)), as the Windows reader does", () => {
    const quirk = gzipSync(gzipSync(Buffer.concat([ascii('plnd'), xml])));
    expect(() => readContainer(quirk)).toThrow(/unknown prefix/);
  });

  it('unknown prefixes, a BOM before plain XML, nested public-key blocks and gzip bombs', () => {
    expect(() => readContainer(Buffer.concat([ascii('abcd'), gzipSync(xml)]))).toThrow(/unknown prefix/);
    expect(() => readContainer(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), xml]))).toThrow(/unknown prefix/);
    expect(() => readContainer(Buffer.concat([ascii('plnd'), ascii('not xml')]))).toThrow(/not an XML/);
    const inner = gunzipSync(writeContainer(xml, { certificate: identity.certificate }));
    const doubled = Buffer.concat([ascii('pkhs'), identity.certificate.pkhsKeyHash, rsaChunks(inner, identity.certificate)]);
    expect(() => readContainer(doubled, { identities: [identity] })).toThrow(/nested/);
    const bomb = gzipSync(Buffer.concat([ascii('plnd'), gzipSync(Buffer.alloc(17 * 1024 * 1024))]));
    expect(() => readContainer(bomb)).toThrow(/oversized/);
  });
});

describe('readContainer accepts what the clients accept', () => {
  let xml: Buffer;
  beforeAll(() => {
    xml = writePlist(sampleSettings());
  });

  it('pswd without outer gzip (the exam server download)', () => {
    const file = Buffer.concat([ascii('pswd'), rncryptorEncrypt(gzipSync(xml), 'pw')]);
    expect(readContainer(file, { password: 'pw' })).toEqual({ xml, layers: ['pswd', 'gzip'] });
  });

  it('gzip(xml) and plnd or pswd with an un-gzipped payload', () => {
    expect(readContainer(gzipSync(xml))).toEqual({ xml, layers: ['gzip'] });
    expect(readContainer(gzipSync(Buffer.concat([ascii('plnd'), xml])))).toEqual({ xml, layers: ['gzip', 'plnd'] });
    const pswd = Buffer.concat([ascii('pswd'), rncryptorEncrypt(xml, 'pw')]);
    expect(readContainer(pswd, { password: 'pw' })).toEqual({ xml, layers: ['pswd'] });
  });

  it('pwcc, keyed with the hashed admin password or the empty string', () => {
    const withAdmin = gzipSync(Buffer.concat([ascii('pwcc'), rncryptorEncrypt(gzipSync(xml), hashExamBrowserPassword('admin'))]));
    expect(readContainer(withAdmin, { password: 'admin' })).toEqual({ xml, layers: ['gzip', 'pwcc', 'gzip'] });
    expect(() => readContainer(withAdmin, { password: 'Admin' })).toThrow(ContainerError);
    const withoutAdmin = gzipSync(Buffer.concat([ascii('pwcc'), rncryptorEncrypt(gzipSync(xml), '')]));
    expect(readContainer(withoutAdmin)).toEqual({ xml, layers: ['gzip', 'pwcc', 'gzip'] });
  });

  it('phsk: little-endian key length, RSA-wrapped key, RNCryptor keyed with its base64', () => {
    const key = randomBytes(32);
    const wrappedKey = publicEncrypt({ key: identity.certificate.publicKey, padding: constants.RSA_PKCS1_PADDING }, key);
    const length = Buffer.alloc(4);
    length.writeInt32LE(wrappedKey.length);
    const inner = Buffer.concat([ascii('pswd'), rncryptorEncrypt(gzipSync(xml), 'pw')]);
    const file = gzipSync(
      Buffer.concat([
        ascii('phsk'),
        identity.certificate.pkhsKeyHash,
        length,
        wrappedKey,
        rncryptorEncrypt(inner, key.toString('base64')),
      ]),
    );
    expect(readContainer(file, { password: 'pw', identities: [identity] })).toEqual({
      xml,
      layers: ['gzip', 'phsk', 'pswd', 'gzip'],
    });
    expect(() => readContainer(file, { password: 'pw', identities: [other] })).toThrow(/key hash/);

    const bigEndian = gunzipSync(file);
    bigEndian.writeInt32BE(wrappedKey.length, 24);
    expect(() => readContainer(bigEndian, { password: 'pw', identities: [identity] })).toThrow(/key length/);
  });
});

function rsaChunks(data: Buffer, certificate: ExbCertificate): Buffer {
  const parts: Buffer[] = [];
  for (let offset = 0; offset < data.length; offset += 200) {
    parts.push(publicEncrypt({ key: certificate.publicKey, padding: constants.RSA_PKCS1_PADDING }, data.subarray(offset, offset + 200)));
  }
  return Buffer.concat(parts);
}
