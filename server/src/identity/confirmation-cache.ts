/**
 * What this process remembers of confirmations the LMS gave (an administrator of the root account, an instructor of a
 * course). Unlike a context binding, a role can end in the LMS, so each confirmation is trusted only for `ttlMs`: that
 * window bounds how long someone removed in the LMS keeps acting through this instance. Bounded: at `limit` entries
 * the expired ones go, and if none had expired, everything (the next action of each person asks the LMS again).
 */
export class ConfirmationCache {
  private readonly confirmedAt = new Map<string, number>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number,
    private readonly limit = 10_000,
  ) {}

  /** Whether `key` was confirmed less than the lifetime ago. */
  has(key: string): boolean {
    const at = this.confirmedAt.get(key);
    if (at === undefined) return false;
    if (this.now() - at < this.ttlMs) return true;
    this.confirmedAt.delete(key);
    return false;
  }

  remember(key: string): void {
    if (this.confirmedAt.size >= this.limit) this.evict();
    this.confirmedAt.set(key, this.now());
  }

  forget(key: string): void {
    this.confirmedAt.delete(key);
  }

  private evict(): void {
    const now = this.now();
    for (const [key, at] of this.confirmedAt) if (now - at >= this.ttlMs) this.confirmedAt.delete(key);
    if (this.confirmedAt.size >= this.limit) this.confirmedAt.clear();
  }
}
