import type { ParamObject } from './params.js';

/** One request the LMS received, with what it answered. */
export interface RecordedCall {
  seq: number;
  at: string;
  /** The route key, e.g. `PUT /api/v1/courses/:course_id/quizzes/:id`. */
  route: string;
  method: string;
  url: string;
  path: string;
  params: Record<string, string>;
  query: ParamObject;
  headers: Record<string, string>;
  /** The raw request body. */
  bodyText: string;
  /** The body parsed like the LMS parses it (JSON or nested form fields). */
  body: ParamObject;
  /** The authenticated user of an API call (bearer token), or the logged-in user of a page. */
  userId: number | null;
  tokenId: number | null;
  status: number | null;
  fault: string | null;
}

type CallFilter = string | ((call: RecordedCall) => boolean);

/** Every call the LMS received, oldest first, so a test can assert what the service did in the LMS. */
export class CallLog {
  private readonly entries: RecordedCall[] = [];
  private seq = 0;

  add(call: Omit<RecordedCall, 'seq'>): RecordedCall {
    const recorded = { ...call, seq: ++this.seq };
    this.entries.push(recorded);
    return recorded;
  }

  list(): RecordedCall[] {
    return [...this.entries];
  }

  filter(filter?: CallFilter): RecordedCall[] {
    if (filter === undefined) return this.list();
    const predicate = typeof filter === 'string' ? (call: RecordedCall) => call.route === filter : filter;
    return this.entries.filter(predicate);
  }

  last(filter?: CallFilter): RecordedCall | undefined {
    return this.filter(filter).at(-1);
  }

  count(filter?: CallFilter): number {
    return this.filter(filter).length;
  }

  clear(): void {
    this.entries.length = 0;
  }
}
