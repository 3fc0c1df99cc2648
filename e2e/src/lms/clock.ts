/**
 * The LMS's notion of "now". Tests move it forward to expire access tokens, authorization codes, launch hints and
 * session tokens without waiting.
 */
export class Clock {
  private offsetMs = 0;

  constructor(private readonly source: () => number = Date.now) {}

  now(): number {
    return this.source() + this.offsetMs;
  }

  date(): Date {
    return new Date(this.now());
  }

  /** Seconds since the epoch, as JWT claims count time. */
  seconds(): number {
    return Math.floor(this.now() / 1000);
  }

  advance(ms: number): void {
    this.offsetMs += ms;
  }

  reset(): void {
    this.offsetMs = 0;
  }
}

/** Canvas renders timestamps as ISO 8601 in UTC without milliseconds. */
export function isoSeconds(time: number | Date): string {
  const date = typeof time === 'number' ? new Date(time) : time;
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
