import i18next from 'i18next';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  englishPolicyText,
  normalizeExternalTool,
  normalizeHostname,
  normalizeQuizOnlyTools,
  normalizeUrlRules,
  ownPasswordProblem,
  policyErrorFromZod,
  policyMessage,
  policySchema,
  renderPolicyMessage,
  setupCompletionProblem,
  wholeSiteConfirmationMessage,
  type PolicyMessageKey,
  type PolicyMessageRef,
  type PolicyResult,
} from '../src/exb-policy/index.js';
import { CATALOGUES, type CatalogueTree } from '../src/i18n/catalogues.js';

// The rules' messages carry a key into the `policy` namespace; their English text is that namespace's English entry.

const options = { baseUrl: 'https://exb.example.edu', assignId: () => 'generated' };

function entriesOf(tree: CatalogueTree, prefix = ''): [string, string][] {
  return Object.entries(tree).flatMap(([key, value]): [string, string][] =>
    typeof value === 'string' ? [[`${prefix}${key}`, value]] : entriesOf(value, `${prefix}${key}.`),
  );
}

function err<T>(result: PolicyResult<T>) {
  if (result.ok) throw new Error(`expected an error, got ${JSON.stringify(result.value)}`);
  return result.error;
}

const german = i18next.createInstance();
beforeAll(async () => {
  await german.init({ lng: 'de', resources: { de: CATALOGUES.de }, ns: ['policy'], interpolation: { escapeValue: false } });
});
const inGerman = (ref: PolicyMessageRef) => renderPolicyMessage(ref, (key, values) => german.t(`policy:${key}`, values));

describe('policy messages', () => {
  it.each(entriesOf(CATALOGUES.en.policy as CatalogueTree))('%s reads its English text from the catalogue', (key, english) => {
    const names = [...english.matchAll(/\{\{(\w+)\}\}/g)].map((match) => match[1]!);
    const message = policyMessage(key as PolicyMessageKey, Object.fromEntries(names.map((name) => [name, `<${name}>`])));
    expect(message.message).toBe(english.replace(/\{\{(\w+)\}\}/g, '<$1>'));
  });

  it('gives every refusal of a rule its key and values, its English message unchanged', () => {
    const error = err(normalizeUrlRules([{ match: 'exact', value: 'http://insecure.example.com/page' }], ['urlRules']));
    expect(error).toEqual({
      errorCode: 'INVALID_EXB_URL_POLICY',
      message: 'Only exact https:// URLs are allowed',
      messageKey: 'url.httpsOnly',
      path: ['urlRules', 0, 'value'],
    });
    const host = normalizeHostname('x'.repeat(300));
    expect(host).toMatchObject({ ok: false, messageKey: 'host.length', values: { max: 253 }, message: 'Expected a host name of at most 253 characters' });
  });

  it('nests the reason of a refused launch address, in English and in German', () => {
    const error = err(normalizeExternalTool({ label: 'Calculator', url: 'http://calc.example.com/app' }, options, ['externalTools', 0]));
    expect(error).toMatchObject({ messageKey: 'tool.launchAddress', values: { reason: { messageKey: 'url.httpsOnly' } } });
    expect(error.message).toBe('Launch address: Only exact https:// URLs are allowed');
    expect(englishPolicyText(error as PolicyMessageRef)).toBe(error.message);
    expect(inGerman(error as PolicyMessageRef)).toBe('Startadresse: Nur genaue https://-Adressen sind zulässig');
  });

  it('quotes the checkbox of a whole site in the language of the page', () => {
    const error = err(normalizeUrlRules([{ match: 'domain', value: 'Example.com' }], ['urlRules']));
    expect(error.messageKey).toBe('rule.confirmWholeSite');
    expect(inGerman(error as PolicyMessageRef)).toContain(`„${inGerman(wholeSiteConfirmationMessage('example.com'))}“`);
    expect(inGerman(wholeSiteConfirmationMessage('example.com'))).toBe('example.com und alle Subdomains davon zulassen');
    expect(inGerman(wholeSiteConfirmationMessage(''))).toBe('Diese Website und alle Subdomains davon zulassen');
  });

  it('finds the message behind a shape error the schemas word themselves', () => {
    const error = err(normalizeQuizOnlyTools([{ label: '', url: 'https://calc.example.com/app' }], options, ['quizOnlyExternalTools']));
    expect(error).toMatchObject({ messageKey: 'tool.labelMissing', message: 'Enter the name students see for the tool' });
    // A shape error zod words itself has no key: the page falls back to the error code's message.
    const raw = err(normalizeUrlRules([{ match: 'regex', value: '.*' }]));
    expect(raw.messageKey).toBeUndefined();
  });

  it('keeps key and values through a route input schema', () => {
    const schema = z.object({ urlRules: policySchema((input) => normalizeUrlRules(input)) });
    const parsed = schema.safeParse({ urlRules: [{ match: 'exact', value: 'https://library.example.edu/a%2Fb' }] });
    expect(parsed.success).toBe(false);
    const error = policyErrorFromZod(parsed.error!);
    expect(error).toMatchObject({ errorCode: 'INVALID_EXB_URL_POLICY', messageKey: 'rule.neverMatches', path: ['urlRules', 0, 'value'] });
  });

  it('says the form-only rules in German too', () => {
    expect(inGerman(ownPasswordProblem('exit', '')!)).toMatch(/^Geben Sie das Exit-Passwort für diese Prüfung ein/);
    expect(ownPasswordProblem('start', 'x'.repeat(129))).toMatchObject({ messageKey: 'password.tooLong', values: { max: 128 } });
    expect(inGerman(ownPasswordProblem('start', 'x'.repeat(129))!)).toBe('Verwenden Sie höchstens 128 Zeichen');
    expect(inGerman(setupCompletionProblem({ setupCompleted: true, exitPasswordAvailable: false })!)).toMatch(/^Legen Sie zuerst/);
  });
});
