import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli.js';
import { SESSION_GENERATION_CACHE_MS, SessionGenerations } from '../../src/security/session-generations.js';
import { SESSION_COOKIE_NAME } from '../../src/security/session-cookie.js';
import { instructor, ISSUER, sessionFor, subjectFor } from '../support/sessions.js';
import { createInstructorBed, type InstructorBed } from '../instructor/harness.js';

/**
 * Sessions are sealed cookies that live for 12 hours; the server-side generation of each person (`issuer`, `subject`)
 * is what ends them earlier. A launch stores the current generation, ending a person's sessions raises it, and every
 * session read refuses an older one.
 */
let t: InstructorBed;
beforeAll(async () => {
  t = await createInstructorBed();
});
afterAll(() => t?.close());
beforeEach(async () => {
  await t.reset();
  await t.sql('delete from session_generation');
  await t.grant();
});

const person = { issuer: ISSUER, subject: subjectFor(2) };

function cliEnv(): Record<string, string> {
  return { NODE_ENV: 'test', LOG_LEVEL: 'silent', DATA_DIR: t.bed.t.dataDir, DATABASE_URL: t.bed.t.databaseUrl };
}

describe('ended sessions', () => {
  it('`end-sessions <issuer> <subject>` ends every session of the person: each read refuses them, a new launch works', async () => {
    const app = await t.appWith((config) => config);
    const old = t.sessionCookie(instructor(), app);
    expect((await t.request('GET', '/api/quizzes', { app, cookie: old })).statusCode).toBe(200);

    const lines: string[] = [];
    expect(await runCli(['end-sessions', person.issuer, person.subject], cliEnv(), (line) => lines.push(line) > 0)).toBe(0);
    expect(lines.join('\n')).toContain('generation 1');

    // Another instance reads the generation the first time it sees the person.
    const other = await t.appWith((config) => config);
    const refused = await t.request('GET', '/api/quizzes', { app: other, cookie: old });
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toMatchObject({ error_code: 'UNAUTHORIZED' });
    // The answer clears the ended session.
    expect(String(refused.headers['set-cookie'])).toContain(`${SESSION_COOKIE_NAME}=`);
    const reveal = await t.request('POST', '/api/quizzes/course/101/passwords/reveal', { app: other, cookie: old });
    expect(reveal.statusCode).toBe(401);

    // Any session sealed with the old generation is refused; one from a launch after the end carries the new one.
    const sealedBefore = t.sessionCookie(instructor(), other);
    expect((await t.request('GET', '/api/quizzes', { app: other, cookie: sealedBefore })).statusCode).toBe(401);
    const current = await new SessionGenerations(t.bed.t.db.pool).read(person);
    expect(current).toBe(1);
    const { cookie } = sessionFor(other, instructor(), { generation: current });
    expect((await t.request('GET', '/api/quizzes', { app: other, cookie })).statusCode).toBe(200);
    // Someone else's sessions are untouched.
    const colleague = t.sessionCookie(instructor({ lmsUserId: '5', ltiSubject: subjectFor(5) }), other);
    expect((await t.request('GET', '/api/quizzes', { app: other, cookie: colleague })).json()).not.toMatchObject({ error_code: 'UNAUTHORIZED' });
  });

  it('refuses a usage without issuer and subject', async () => {
    const lines: string[] = [];
    expect(await runCli(['end-sessions', person.issuer], cliEnv(), (line) => lines.push(line) > 0)).toBe(2);
    expect(lines.join('\n')).toContain('end-sessions <issuer> <subject>');
  });

  it('caches a generation for a few seconds per person; the instance that ends them refuses at once', async () => {
    let now = 1_000_000;
    const generations = new SessionGenerations(t.bed.t.db.pool, () => now);
    const elsewhere = new SessionGenerations(t.bed.t.db.pool, () => now);
    expect(await generations.valid(person, 0)).toBe(true);
    expect(await elsewhere.valid(person, 0)).toBe(true);

    expect(await generations.endSessions(person)).toBe(1);
    expect(await generations.valid(person, 0)).toBe(false);
    expect(await generations.valid(person, 1)).toBe(true);
    // Another instance keeps its read for the cache window only.
    expect(await elsewhere.valid(person, 0)).toBe(true);
    now += SESSION_GENERATION_CACHE_MS;
    expect(await elsewhere.valid(person, 0)).toBe(false);
    expect(await generations.endSessions(person)).toBe(2);
  });
});
