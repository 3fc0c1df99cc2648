/**
 * The runs of one background job on this instance, one at a time, that a shutdown can wait for: `stop` lets the run at
 * hand finish (the job checks `stopped` between its items) and no new one starts.
 */
export class StoppableRuns<T> {
  private running: Promise<T> | null = null;
  private halted = false;

  /** Whether `stop` was called: a run in progress ends after the item at hand. */
  get stopped(): boolean {
    return this.halted;
  }

  /** Runs `work` unless stopped, in which case the answer is `idle`. */
  async run(idle: T, work: () => Promise<T>): Promise<T> {
    if (this.halted) return idle;
    this.running = work();
    try {
      return await this.running;
    } finally {
      this.running = null;
    }
  }

  async stop(): Promise<void> {
    this.halted = true;
    await this.running?.catch(() => undefined);
  }
}
