import { describe, expect, it } from 'vitest';
import {
  normalizeExternalTool,
  normalizeQuizOnlyTools,
  normalizeToolSelection,
  normalizeUrlRules,
  ownPasswordRefusal,
  setupCompletionRefusal,
  siteOfAddress,
  wholeSiteConfirmation,
  type PolicyResult,
} from '../src/exb-policy/index.js';

// The rules as the instructor's forms meet them: every refusal speaks the form's words, never a field or type name.

const options = { baseUrl: 'https://exb.example.edu', assignId: () => 'generated' };
const INTERNAL_NAME = /broadDomainConfirmed|externalToolIds|quizOnlyExternalTools|resourceRules|managedByAdmin|expected string|Too small/i;

function err<T>(result: PolicyResult<T>) {
  if (result.ok) throw new Error(`expected an error, got ${JSON.stringify(result.value)}`);
  return result.error;
}

describe('a whole site', () => {
  it('is confirmed with words that name the site as it will be stored', () => {
    expect(wholeSiteConfirmation('example.com')).toBe('Allow example.com and every subdomain of it');
    expect(wholeSiteConfirmation(' Wikipedia.ORG ')).toBe('Allow wikipedia.org and every subdomain of it');
    expect(wholeSiteConfirmation('')).toBe('Allow this site and every subdomain of it');
  });

  it('without the confirmation is refused with the words of the checkbox to tick', () => {
    const error = err(normalizeUrlRules([{ match: 'domain', value: 'Example.com' }], ['urlRules']));
    expect(error).toMatchObject({ errorCode: 'INVALID_EXB_DOMAIN_POLICY', path: ['urlRules', 0, 'broadDomainConfirmed'] });
    expect(error.message).toContain(`tick “${wholeSiteConfirmation('example.com')}”`);
    expect(error.message).not.toMatch(INTERNAL_NAME);
  });

  it.each([
    ['https://en.wikipedia.org/wiki/X', 'en.wikipedia.org'],
    ['http://en.wikipedia.org', 'en.wikipedia.org'],
    ['  HTTPS://Library.Example.edu:8443/reserves?x=1#top ', 'library.example.edu'],
    ['https://user@library.example.edu/', 'library.example.edu'],
    ['en.wikipedia.org/wiki/X', 'en.wikipedia.org'],
    ['example.edu?lang=en', 'example.edu'],
  ])('takes the host of the pasted address %s', (pasted, host) => {
    expect(siteOfAddress(pasted)).toBe(host);
  });

  it.each(['example.edu', ' example.edu ', 'ftp://files.example.edu/x', '*.example.edu', '/wiki/X', ''])(
    'leaves %s for the host name rule to judge',
    (value) => {
      expect(siteOfAddress(value)).toBe(value.trim());
    },
  );

  it('accepts the host taken from a pasted address, and the server rule still refuses the address itself', () => {
    const pasted = 'https://en.wikipedia.org/wiki/X';
    expect(err(normalizeUrlRules([{ match: 'domain', value: pasted, broadDomainConfirmed: true }])).errorCode).toBe('INVALID_EXB_DOMAIN_POLICY');
    const rules = normalizeUrlRules([{ match: 'domain', value: siteOfAddress(pasted), broadDomainConfirmed: true }]);
    expect(rules).toEqual({ ok: true, value: [{ match: 'domain', value: 'en.wikipedia.org', broadDomainConfirmed: true }] });
  });
});

describe('refusals in the words of the form', () => {
  it.each([
    ['the front page of a site', [{ match: 'exact', value: 'https://library.example.edu/' }]],
    ['an encoded address', [{ match: 'exact', value: 'https://library.example.edu/a%2Fb' }]],
    ['a public suffix', [{ match: 'domain', value: 'co.uk', broadDomainConfirmed: true }]],
  ])('%s', (_name, rules) => {
    expect(err(normalizeUrlRules(rules)).message).not.toMatch(INTERNAL_NAME);
  });

  it('a tool without a name or launch address says what to enter, at the field', () => {
    const noUrl = err(normalizeExternalTool({ label: 'Calculator', url: '' }, options, ['quizOnlyExternalTools', 0]));
    expect(noUrl).toMatchObject({ path: ['quizOnlyExternalTools', 0, 'url'], message: 'Enter the launch address of the tool' });
    for (const label of ['', '   ']) {
      const noName = err(normalizeExternalTool({ label, url: 'https://calc.example.com/app' }, options, ['externalTools', 1]));
      expect(noName).toMatchObject({ path: ['externalTools', 1, 'label'], message: 'Enter the name students see for the tool' });
    }
  });

  it('a refused launch address is named as the form names it', () => {
    const error = err(normalizeExternalTool({ label: 'Calculator', url: 'http://calc.example.com/app' }, options, ['externalTools', 0]));
    expect(error).toMatchObject({ path: ['externalTools', 0, 'url'], message: 'Launch address: Only exact https:// URLs are allowed' });
  });

  it('a launch address at the front page of a site points to the websites the tool needs', () => {
    const error = err(normalizeQuizOnlyTools([{ label: 'Calculator', url: 'https://calc.example.com/' }], options, ['quizOnlyExternalTools']));
    expect(error.path).toEqual(['quizOnlyExternalTools', 0, 'url']);
    expect(error.message).toMatch(/other websites this tool needs/);
    expect(error.message).not.toMatch(INTERNAL_NAME);
  });

  it('a selection naming a tool the course no longer has asks to choose again', () => {
    const error = err(normalizeToolSelection(['gone'], [{ id: 'calc' }], ['externalToolIds']));
    expect(error).toMatchObject({ errorCode: 'INVALID_EXB_TOOL_SELECTION', path: ['externalToolIds', 0] });
    expect(error.message).not.toMatch(INTERNAL_NAME);
  });
});

describe("an assessment's own password", () => {
  it('must be entered when chosen, since an empty one would change nothing', () => {
    expect(ownPasswordRefusal('exit', '')).toBe('Enter the exit password for this assessment, or choose “Keep as it is” to leave it unchanged');
    expect(ownPasswordRefusal('start', '')).toMatch(/^Enter the start password/);
  });

  it('follows the password rule of the exam browser', () => {
    expect(ownPasswordRefusal('exit', 'leave-now-42')).toBeNull();
    expect(ownPasswordRefusal('exit', 'sortie-élève')).toBe('Use printable ASCII characters only');
    expect(ownPasswordRefusal('start', 'x'.repeat(129))).toBe('Use at most 128 characters');
  });
});

describe('completing the setup of a course', () => {
  it('is refused while the course would have no exit password', () => {
    expect(setupCompletionRefusal({ setupCompleted: true, exitPasswordAvailable: false })).toMatch(/^Set a course exit password first/);
  });

  it('is accepted with an exit password, and leaving it incomplete is always possible', () => {
    expect(setupCompletionRefusal({ setupCompleted: true, exitPasswordAvailable: true })).toBeNull();
    expect(setupCompletionRefusal({ setupCompleted: false, exitPasswordAvailable: false })).toBeNull();
  });
});
