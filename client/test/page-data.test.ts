import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { bootstrapSchema, describeIssues } from '../src/bootstrap';
import { pageLocale } from '../src/i18n/page-locale';
import { relativeTime, termLabel } from '../src/views/admin/model';
import { startEnglish } from './support/i18n';

beforeAll(startEnglish);
afterEach(() => {
  vi.unstubAllGlobals();
});

describe('bootstrapSchema and describeIssues', () => {
  it('keeps the keys a view reads itself', () => {
    expect(bootstrapSchema.parse({ view: 'teacher', courseId: '101' })).toEqual({ view: 'teacher', courseId: '101' });
  });

  it('says each problem by its path, never by the value it found', () => {
    const parsed = bootstrapSchema.safeParse({ view: '', actionToken: 'secret-token', locale: 7 });
    expect(parsed.success).toBe(false);
    const lines = describeIssues(parsed.error!);
    expect(lines.map((line) => line.split(':')[0])).toEqual(['view', 'locale']);
    expect(lines.join('\n')).not.toContain('secret-token');
  });

  it('names the root for data that is no object', () => {
    const parsed = bootstrapSchema.safeParse(['view']);
    expect(describeIssues(parsed.error!)[0]).toMatch(/^\(root\): /);
  });
});

describe('pageLocale', () => {
  it("takes the server's choice when it is a language the pages speak", () => {
    vi.stubGlobal('navigator', { languages: ['en-US'] });
    expect(pageLocale({ view: 'x', locale: 'de' })).toBe('de');
  });

  it("falls back to the browser's first language the pages speak, then to English", () => {
    vi.stubGlobal('navigator', { languages: ['fr-FR', 'de-AT', 'en'] });
    expect(pageLocale({ view: 'x', locale: 'fr' })).toBe('de');
    expect(pageLocale(undefined)).toBe('de');
    vi.stubGlobal('navigator', { languages: ['fr', 'it'] });
    expect(pageLocale(undefined)).toBe('en');
    vi.stubGlobal('navigator', {});
    expect(pageLocale(undefined)).toBe('en');
  });
});

describe('relativeTime', () => {
  const now = Date.parse('2026-11-27T12:00:00Z');
  const ago = (ms: number) => new Date(now - ms).toISOString();

  it('says "just now" within a minute, and a moment a little in the future too', () => {
    expect(relativeTime(ago(20_000), now)).toBe('just now');
    expect(relativeTime(ago(-20_000), now)).toBe('just now');
  });

  it('counts minutes, then hours, then gives the date', () => {
    expect(relativeTime(ago(5 * 60_000), now)).toBe('5 min. ago');
    expect(relativeTime(ago(3 * 3_600_000), now)).toBe('3 hr. ago');
    expect(relativeTime(ago(3 * 86_400_000), now)).toBe('Nov 24, 2026');
  });
});

describe('termLabel', () => {
  it('shows the dates only where the LMS has both', () => {
    expect(termLabel({ name: 'Fall', startAt: '2026-09-01T12:00:00Z', endAt: '2026-12-20T12:00:00Z' })).toBe('Fall (Sep 1, 2026 – Dec 20, 2026)');
    expect(termLabel({ name: 'Fall', startAt: null, endAt: '2026-12-20T00:00:00Z' })).toBe('Fall');
  });
});
