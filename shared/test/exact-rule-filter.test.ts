import { describe, expect, it } from 'vitest';
import {
  exactRuleMismatch,
  mergeInstructorToolCatalog,
  normalizeExternalTool,
  normalizeQuizOnlyTools,
  normalizeToolCatalog,
  normalizeUrlRules,
  policyErrorFromZod,
  policySchema,
  type ExternalToolConfig,
  type PolicyResult,
} from '../src/exb-policy/index.js';

// Exact URLs the exam browser's URL filter reads differently than "this one page": refused when saved, kept when stored.

const options = { baseUrl: 'https://exb.example.edu', assignId: () => 'generated' };

function ok<T>(result: PolicyResult<T>): T {
  if (!result.ok) throw new Error(`expected success, got ${JSON.stringify(result.error)}`);
  return result.value;
}

function err<T>(result: PolicyResult<T>) {
  if (result.ok) throw new Error(`expected an error, got ${JSON.stringify(result.value)}`);
  return result.error;
}

const exact = (value: string) => ({ match: 'exact', value });
const domain = (value: string) => ({ match: 'domain', value, broadDomainConfirmed: true });

const WHOLE_HOST = ['https://tool.example.com/?lang=en', 'https://tool.example.com/', 'https://tool.example.com', 'https://tool.example.com:8443/?a=1'];
const NEVER_MATCHES = [
  'https://tool.example.com/search?q=a+b',
  'https://tool.example.com/a+b/page',
  'https://tool.example.com/files/a%2Fb',
  'https://tool.example.com/files/a%2fb',
  'https://tool.example.com/c%2B%2B',
  'https://tool.example.com/page?x=a%26b',
  'https://tool.example.com/page?x=a%3Db',
  'https://tool.example.com/page%3Fx',
  'https://tool.example.com/page%23top',
  // Both at once: the decoding one is named, as no page path would help.
  'https://tool.example.com/?q=a+b',
];
const STILL_ACCEPTED = [
  // A path other than "/", with or without a query.
  'https://tool.example.com/app',
  'https://tool.example.com/app/?lang=en',
  // The decoded forms of the refused characters.
  'https://tool.example.com/files/a/b',
  'https://tool.example.com/page?x=a&b=c',
  'https://tool.example.com/search?q=a',
  // Encodings the filter's decoding leaves equal to the rule.
  'https://tool.example.com/my%20notes.pdf',
  'https://tool.example.com/b%C3%BCcher',
  // Case differs from what students may type; the filter ignores it, so it is told, not refused.
  'https://tool.example.com/Reserves',
];

describe('exactRuleMismatch', () => {
  it.each(WHOLE_HOST)('%s allows the whole host', (url) => {
    expect(exactRuleMismatch(new URL(url).href)).toBe('whole-host');
  });
  it.each(NEVER_MATCHES)('%s never matches', (url) => {
    expect(exactRuleMismatch(url)).toBe('never-matches');
  });
  it.each(STILL_ACCEPTED)('%s means that page', (url) => {
    expect(exactRuleMismatch(url)).toBeNull();
  });
});

describe('URL policy rules at save time', () => {
  it.each(WHOLE_HOST)('refuses %s, offering a domain rule or one page', (url) => {
    const error = err(normalizeUrlRules([exact('https://tool.example.com/app'), exact(url)], ['urlRules']));
    expect(error).toMatchObject({ errorCode: 'INVALID_EXB_URL_POLICY', path: ['urlRules', 1, 'value'] });
    expect(error.message).toMatch(/every page of a site/);
    expect(error.message).toMatch(/add it as a whole site/);
    expect(error.message).not.toContain('tool.example.com');
  });

  it.each(NEVER_MATCHES)('refuses %s, offering the decoded form', (url) => {
    const error = err(normalizeUrlRules([exact(url)], ['urlRules']));
    expect(error).toMatchObject({ errorCode: 'INVALID_EXB_URL_POLICY', path: ['urlRules', 0, 'value'] });
    expect(error.message).toMatch(/decoded form/);
  });

  it.each(STILL_ACCEPTED)('accepts %s', (url) => {
    expect(ok(normalizeUrlRules([exact(url)]))).toEqual([exact(url)]);
  });

  it('accepts the whole site as a confirmed domain rule', () => {
    expect(ok(normalizeUrlRules([domain('tool.example.com')]))).toEqual([domain('tool.example.com')]);
  });

  it('keeps the field path through the zod adapter the routes use', () => {
    const parsed = policySchema((input) => normalizeUrlRules(input)).safeParse([exact('https://tool.example.com/?lang=en')]);
    expect(parsed.success).toBe(false);
    if (!parsed.success) expect(policyErrorFromZod(parsed.error)).toMatchObject({ errorCode: 'INVALID_EXB_URL_POLICY', path: [0, 'value'] });
  });

  it('reads stored rules of the refused kinds unchanged', () => {
    const stored = [...new Set([...WHOLE_HOST, ...NEVER_MATCHES].map((url) => new URL(url).href))].map(exact);
    expect(ok(normalizeUrlRules(stored, [], 'stored'))).toEqual(stored);
  });
});

describe('tools at save time', () => {
  const tool = (url: string, resourceRules: unknown[] = []) => ({ id: 't', label: 'Tool', url, resourceRules });

  it.each([...WHOLE_HOST, ...NEVER_MATCHES])('refuses the resource rule %s as INVALID_EXB_TOOL_POLICY', (url) => {
    const error = err(normalizeExternalTool(tool('https://tool.example.com/app', [exact(url)]), options, ['externalTools', 2]));
    expect(error).toMatchObject({ errorCode: 'INVALID_EXB_TOOL_POLICY', path: ['externalTools', 2, 'resourceRules', 0, 'value'] });
  });

  it.each(NEVER_MATCHES)('refuses the launch URL %s', (url) => {
    const error = err(normalizeExternalTool(tool(url, [domain('tool.example.com')]), options, ['externalTools', 0]));
    expect(error).toMatchObject({ errorCode: 'INVALID_EXB_TOOL_POLICY', path: ['externalTools', 0, 'url'] });
    expect(error.message).toMatch(/decoded form/);
  });

  it.each(WHOLE_HOST)('refuses the launch URL %s unless a domain rule of the tool allows the host', (url) => {
    const error = err(normalizeExternalTool(tool(url), options, ['externalTools', 0]));
    expect(error).toMatchObject({ errorCode: 'INVALID_EXB_TOOL_POLICY', path: ['externalTools', 0, 'url'] });
    expect(error.message).toMatch(/add the whole site to the other websites this tool needs/);
    expect(err(normalizeExternalTool(tool(url, [domain('cdn.example.com')]), options)).path).toEqual(['url']);
    for (const covering of ['tool.example.com', 'example.com']) {
      expect(ok(normalizeExternalTool(tool(url, [domain(covering)]), options)).url).toBe(new URL(url).href);
    }
  });

  it.each(STILL_ACCEPTED)('accepts the launch URL and resource rule %s', (url) => {
    const saved = ok(normalizeExternalTool(tool(url, [exact(url)]), options));
    expect(saved).toMatchObject({ url, resourceRules: [exact(url)] });
  });

  it('applies the same rules to catalogs, instructor catalogs and assessment tools', () => {
    const refused = [tool('https://tool.example.com/?lang=en')];
    expect(err(normalizeToolCatalog(refused, options)).path).toEqual([0, 'url']);
    expect(err(mergeInstructorToolCatalog([], refused, options)).path).toEqual([0, 'url']);
    expect(err(normalizeQuizOnlyTools(refused, options)).path).toEqual([0, 'url']);
  });

  it('reads a stored tool of the refused kinds unchanged', () => {
    const stored = tool('https://tool.example.com/', [exact('https://cdn.example.com/a+b')]);
    expect(ok(normalizeExternalTool(stored, { ...options, check: 'stored' }))).toMatchObject(stored);
  });

  it('lets an instructor echo back or switch off a school-managed tool saved before these rules', () => {
    const managed: ExternalToolConfig = {
      id: 'school',
      label: 'School dictionary',
      url: 'https://dictionary.school.example.edu/',
      resourceRules: [exact('https://cdn.school.example.edu/?v=1')],
      managedByAdmin: true,
      presetId: '6f1c8a52-3d0e-4b7a-9d52-0d9b1f3e2a10',
      enabled: true,
    };
    expect(ok(mergeInstructorToolCatalog([managed], [{ ...managed, enabled: false }], options))).toEqual([{ ...managed, enabled: false }]);
    expect(ok(mergeInstructorToolCatalog([managed], [{ id: 'school', enabled: false }], options))).toEqual([{ ...managed, enabled: false }]);
  });
});
