import { describe, expect, it } from 'vitest';
import { generateSelfSignedCertificate } from '../../src/exb/certificate.js';
import { CertificateStore } from '../../src/exb/certificate-store.js';
import { readContainer } from '../../src/exb/container.js';
import { computeConfigKey } from '../../src/exb/config-key.js';
import { readPlist } from '../../src/exb/plist.js';
import { rncryptorDecrypt, rncryptorEncrypt, rncryptorEncryptWithKeys, rncryptorPrepareKeys } from '../../src/exb/rncryptor.js';
import type { Principal } from '../../src/identity/principal.js';
import { ExamConfigurations } from '../../src/domain/exam-browser/configuration.js';
import type { ExamPolicy } from '../../src/domain/exam-browser/exam-policy.js';
import { QuitTokens } from '../../src/domain/exam-browser/quit-token.js';
import { REQUIREMENT_CACHE_MS, RequirementService } from '../../src/domain/exam-browser/requirement.js';
import { settingsWritten } from '../../src/domain/settings/settings-generation.js';
import { ACTION_TOKEN_TTL_SECONDS, ActionTokens } from '../../src/security/action-token.js';
import { instructor, student } from './harness.js';

const SECRET = Buffer.from('a test application secret of enough length', 'utf8');

describe('action tokens', () => {
  let now = 1_800_000_000_000;
  const tokens = ActionTokens.fromAppSecret(SECRET, { now: () => now });
  const session = (principal: Principal, sid = 'S'.repeat(43)) => ({ sid, principal });

  it('verify for the session, principal and purpose they were issued to, until they expire', () => {
    const s = session(student());
    const token = tokens.issue(s, 'config-grant');
    expect(token).toMatch(/^v1\.config-grant\.\d+\.[A-Za-z0-9_-]{43}$/);
    expect(tokens.verify(token, s, 'config-grant')).toEqual({ ok: true });
    now += (ACTION_TOKEN_TTL_SECONDS - 1) * 1000;
    expect(tokens.verify(token, s, 'config-grant')).toEqual({ ok: true });
    now += 1000;
    expect(tokens.verify(token, s, 'config-grant')).toEqual({ ok: false, reason: 'expired' });
  });

  it('are bound to the LTI subject, LMS user, course, deployment, issuer, role, session and purpose', () => {
    const base = student() as Extract<Principal, { kind: 'student' }>;
    const s = session(base);
    const token = tokens.issue(s, 'config-grant');
    const others: Principal[] = [
      { ...base, ltiSubject: 'other' },
      { ...base, lmsUserId: '99' },
      { ...base, courseId: '102' },
      { ...base, deploymentId: 'other-deployment' },
      { ...base, issuer: 'https://other.example' },
      instructor({ lmsUserId: base.lmsUserId, ltiSubject: base.ltiSubject }),
    ];
    for (const principal of others) expect(tokens.verify(token, session(principal), 'config-grant').ok).toBe(false);
    expect(tokens.verify(token, session(base, 'T'.repeat(43)), 'config-grant')).toEqual({ ok: false, reason: 'mismatch' });
    expect(tokens.verify(token, s, 'admin-mutation')).toEqual({ ok: false, reason: 'mismatch' });
    expect(ActionTokens.fromAppSecret(Buffer.from('another secret of enough length....'), { now: () => now }).verify(token, s, 'config-grant').ok).toBe(false);
    const forged = token.replace(/\.(\d+)\./, (_match, expiry: string) => `.${Number(expiry) + 3600}.`);
    expect(tokens.verify(forged, s, 'config-grant').ok).toBe(false);
  });

  it('reject malformed values without throwing', () => {
    const s = session(student());
    for (const value of [undefined, null, '', 7, {}, 'v1', 'v2.config-grant.1.' + 'A'.repeat(43), 'x'.repeat(500), `v1.config-grant.1.${'A'.repeat(44)}`]) {
      expect(tokens.verify(value, s, 'config-grant').ok).toBe(false);
    }
  });
});

describe('requirement lookups', () => {
  const active = { active: true } as ExamPolicy;

  it('share one pending lookup among concurrent identical requests, and keep the answer for a second', async () => {
    let now = 1_000_000;
    let calls = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const service = new RequirementService(async () => {
      calls += 1;
      await gate;
      return active;
    }, { warn: () => undefined }, () => now);
    const pending = Array.from({ length: 25 }, () => service.isRequired({ courseId: '101', contentId: 'classicquiz_201' }));
    const other = service.isRequired({ courseId: '101', contentId: 'classicquiz_202' });
    release();
    expect(await Promise.all(pending)).toEqual(Array(25).fill(true));
    expect(await other).toBe(true);
    expect(calls).toBe(2);
    now += REQUIREMENT_CACHE_MS - 1;
    await service.isRequired({ courseId: '101', contentId: 'classicquiz_201' });
    expect(calls).toBe(2);
    now += 1;
    await service.isRequired({ courseId: '101', contentId: 'classicquiz_201' });
    expect(calls).toBe(3);
    // A settings write through this process retires every kept answer at once.
    settingsWritten();
    await service.isRequired({ courseId: '101', contentId: 'classicquiz_201' });
    expect(calls).toBe(4);
  });

  it('answer malformed and foreign ids without a lookup, and false for absent, inactive or failing lookups', async () => {
    let calls = 0;
    const results: (ExamPolicy | null | Error)[] = [null, { active: false } as ExamPolicy, new Error('database down')];
    const service = new RequirementService(async () => {
      calls += 1;
      const next = results.shift();
      if (next instanceof Error) throw next;
      return next ?? null;
    }, { warn: () => undefined }, () => (now += REQUIREMENT_CACHE_MS));
    let now = 0;
    for (const [courseId, contentId] of [
      ['101', '201'],
      ['101', 'classicquiz_0201'],
      ['abc', 'classicquiz_201'],
      ['101', 'newquiz:102:303'],
      ['101', 'newquiz:101'],
    ]) {
      expect(await service.isRequired({ courseId: courseId!, contentId: contentId! })).toBe(false);
    }
    expect(calls).toBe(0);
    for (let i = 0; i < 3; i += 1) expect(await service.isRequired({ courseId: '101', contentId: 'classicquiz_201' })).toBe(false);
    expect(calls).toBe(3);
  });
});

describe('quit tokens', () => {
  const quit = QuitTokens.fromAppSecret(SECRET);

  it('bind course, content and access code, and form the configuration quit URL', () => {
    const token = quit.token('101', 'classicquiz_201', 'code-1');
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(quit.quitUrl('https://tool.example.test', '101', 'classicquiz_201', 'code-1')).toBe(
      `https://tool.example.test/exb/exit/complete/101/classicquiz_201/${token}`,
    );
    expect(quit.matches(token, '101', 'classicquiz_201', 'code-1')).toBe(true);
    for (const [course, content, code] of [
      ['102', 'classicquiz_201', 'code-1'],
      ['101', 'classicquiz_2011', 'code-1'],
      ['101', 'classicquiz_201', 'code-2'],
    ] as const) {
      expect(quit.matches(token, course, content, code)).toBe(false);
    }
    expect(quit.matches('ä'.repeat(43), '101', 'classicquiz_201', 'code-1')).toBe(false);
  });
});

describe('RNCryptor with keys derived once', () => {
  it('writes messages the reader opens, each with its own IV, and equals the one-shot writer for the same parameters', () => {
    const keys = rncryptorPrepareKeys('start-me');
    const first = rncryptorEncryptWithKeys(Buffer.from('payload'), keys);
    const second = rncryptorEncryptWithKeys(Buffer.from('payload'), keys);
    expect(rncryptorDecrypt(first, 'start-me').toString()).toBe('payload');
    expect(first.subarray(2, 18)).toEqual(second.subarray(2, 18));
    expect(first.subarray(18, 34)).not.toEqual(second.subarray(18, 34));
    const parameters = { encryptionSalt: Buffer.alloc(8, 1), hmacSalt: Buffer.alloc(8, 2), iv: Buffer.alloc(16, 3) };
    expect(rncryptorEncryptWithKeys(Buffer.from('x'), rncryptorPrepareKeys('pw', parameters), parameters.iv)).toEqual(
      rncryptorEncrypt(Buffer.from('x'), 'pw', parameters),
    );
  });
});

describe('configurations per fingerprint', () => {
  const { certificatePem, privateKeyPem } = generateSelfSignedCertificate({ commonName: 'unit', days: 2 });
  const certificates = CertificateStore.fromBytes(Buffer.from(certificatePem));
  const policy = (fingerprint: string, startPassword: string | null = null): ExamPolicy => ({
    courseId: '101',
    contentId: 'classicquiz_201',
    exbRequired: true,
    enabled: true,
    accessCode: 'code',
    quitUrl: 'https://tool.example.test/exb/exit/complete/101/classicquiz_201/' + 'A'.repeat(43),
    fingerprint,
    active: true,
    effective: {
      courseId: '101',
      contentId: 'classicquiz_201',
      urlRules: [],
      tools: [],
      startPassword: { value: startPassword, source: startPassword === null ? 'none' : 'assessment' },
      exitPassword: { value: 'exit', source: 'assessment' },
    },
  });
  const configurations = new ExamConfigurations({
    baseUrl: 'https://tool.example.test',
    lmsUrl: 'https://lms.example.test',
    certificates,
    additionalAllowedHosts: ['login.example.edu'],
    appSecret: SECRET,
    clock: Date.now,
  });
  const identities = [{ certificate: certificates.loaded!, privateKey: privateKeyPem }];

  it('keep one Config Key per fingerprint, the same on every instance, and a different one per session URL', () => {
    const a = policy('a'.repeat(64));
    const key = configurations.deterministicConfigKey(a);
    const elsewhere = new ExamConfigurations({
      baseUrl: 'https://tool.example.test',
      lmsUrl: 'https://lms.example.test',
      certificates,
      additionalAllowedHosts: ['login.example.edu'],
      appSecret: SECRET,
      clock: Date.now,
    });
    expect(elsewhere.deterministicConfigKey(a)).toBe(key);
    expect(configurations.deterministicConfigKey(policy('b'.repeat(64)))).not.toBe(key);
    const deterministic = configurations.build(a, null);
    expect(deterministic).toMatchObject({ configKey: key, perDownload: false });
    const withSession = configurations.build(a, 'https://lms.example.test/courses/101/quizzes/201?session_token=x');
    expect(withSession.perDownload).toBe(true);
    expect(withSession.configKey).not.toBe(key);
    // Fresh encryption per file, same content.
    expect(configurations.build(a, null).bytes).not.toEqual(deterministic.bytes);
    expect(readContainer(configurations.build(a, null).bytes, { identities }).xml).toEqual(readContainer(deterministic.bytes, { identities }).xml);
  });

  it('refuse a start URL off the LMS and service origins', () => {
    expect(() => configurations.build(policy('c'.repeat(64)), 'https://evil.example/login')).toThrow(/start URL/);
  });

  it('give a download marked with a value of its own a key of its own, the deterministic one with the mark taken out', () => {
    const p = policy('e'.repeat(64));
    const page = configurations.assessmentUrl(p);
    expect(configurations.ownAssessmentUrl(p, 'mark-1')).toBe(`${page}?exb_download=mark-1`);
    const [one, two] = ['mark-1', 'mark-2'].map((mark) => configurations.build(p, configurations.ownAssessmentUrl(p, mark)));
    expect(one!.perDownload).toBe(true);
    expect(one!.configKey).not.toBe(two!.configKey);
    const settings = readPlist(readContainer(one!.bytes, { identities }).xml);
    expect(computeConfigKey(new Map([...settings, ['startURL', page]]))).toBe(configurations.deterministicConfigKey(p));
  });

  it('encrypt start-password configurations with salts fixed per fingerprint and a fresh IV per file', () => {
    const p = policy('d'.repeat(64), 'start-me');
    const [one, two] = [configurations.build(p, null), configurations.build(p, null)];
    const first = readContainer(one.bytes, { identities, password: 'start-me' });
    expect(first.layers).toEqual(['gzip', 'pkhs', 'pswd', 'gzip']);
    expect(readContainer(two.bytes, { identities, password: 'start-me' }).xml).toEqual(first.xml);
  });
});
