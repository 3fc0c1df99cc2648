import type { Pool } from 'pg';

/** Whose sessions a generation counts: the signed launch's issuer and subject. */
export interface SessionPerson {
  issuer: string;
  subject: string;
}

/**
 * How long this process trusts a generation it read. Sessions are sealed cookies, so the generation is the one thing
 * on the server that can end them before their 12 hours: every session read compares it, and this window keeps that
 * to one primary-key read per person per few seconds. It bounds how long an ended session still works on another
 * instance; on the instance that ended it, not at all.
 */
export const SESSION_GENERATION_CACHE_MS = 10_000;
const CACHE_LIMIT = 10_000;

/**
 * The server-side generation of each person's sessions (`session_generation`). A launch stores the current generation
 * in its session; ending the person's sessions raises it, so every session sealed before is refused from then on, and
 * the next launch starts a valid one. A relaunch does not raise it: a teacher with the tool open in two tabs or on two
 * devices, or a student whose exam browser holds a session of its own, keeps each one working.
 */
export class SessionGenerations {
  private readonly cache = new Map<string, { generation: number; readAt: number }>();

  constructor(
    private readonly pool: Pool,
    private readonly now: () => number = Date.now,
  ) {}

  /** The person's current generation (0 when their sessions were never ended), at most a few seconds old. */
  async current(person: SessionPerson): Promise<number> {
    const cached = this.cache.get(cacheKey(person));
    if (cached !== undefined && this.now() - cached.readAt < SESSION_GENERATION_CACHE_MS) return cached.generation;
    return this.read(person);
  }

  /**
   * The generation straight from the database, for a launch: a new session must not carry one already ended. `alongside`
   * is a data-modifying CTE the launch records with the read (its placeholders start at `$3`), so it costs no round trip.
   */
  async read(person: SessionPerson, alongside?: { readonly name: string; readonly cte: string; readonly values: readonly unknown[] }): Promise<number> {
    const select = 'select generation from session_generation where issuer = $1 and subject = $2';
    const result = await this.pool.query<{ generation: number }>(
      alongside === undefined
        ? { name: 'session-generation-read', text: select, values: [person.issuer, person.subject] }
        : {
            name: `session-generation-read-${alongside.name}`,
            text: `with alongside as (${alongside.cte}) ${select}`,
            values: [person.issuer, person.subject, ...alongside.values],
          },
    );
    return this.remember(person, result.rows[0]?.generation ?? 0);
  }

  /** Ends every session of the person that exists now; returns the new generation. */
  async endSessions(person: SessionPerson): Promise<number> {
    const result = await this.pool.query<{ generation: number }>({
      name: 'session-generation-end',
      text: `insert into session_generation (issuer, subject, generation, ended_at) values ($1, $2, 1, now())
             on conflict (issuer, subject) do update set generation = session_generation.generation + 1, ended_at = now()
             returning generation`,
      values: [person.issuer, person.subject],
    });
    return this.remember(person, result.rows[0]!.generation);
  }

  /** Whether a session sealed with `generation` for the person is still valid. */
  async valid(person: SessionPerson, generation: number): Promise<boolean> {
    return generation >= (await this.current(person));
  }

  private remember(person: SessionPerson, generation: number): number {
    if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
    this.cache.set(cacheKey(person), { generation, readAt: this.now() });
    return generation;
  }
}

function cacheKey(person: SessionPerson): string {
  return JSON.stringify([person.issuer, person.subject]);
}
