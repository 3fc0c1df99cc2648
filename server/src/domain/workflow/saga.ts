/**
 * A saga: steps that each change something outside one database transaction, each paired with the compensation that
 * undoes it. The steps run in order; when one fails, the compensations of the steps that completed run in reverse
 * order, so the last change is undone first and every compensation finds the state its step left.
 *
 * A failing step decides how it failed (`classify`):
 * - `not-applied`: the step changed nothing (a refusal); only the completed steps are compensated;
 * - `maybe-applied`: the step's outcome is unknown (a timeout, a lost answer); its own compensation runs first;
 * - `halt`: compensating is no longer safe (the workflow lost its lock, so someone else may be changing the same
 *   things); nothing is compensated and the caller reports what is left to check.
 *
 * A compensation that fails does not stop the others: each is tried, and the ones that failed are reported.
 */

export interface SagaStep {
  /** Names the step in reports and logs. */
  readonly name: string;
  run(): Promise<void>;
  /** Undoes `run`; absent for steps whose failure leaves nothing to undo (a database transaction rolls back itself). */
  compensate?(): Promise<void>;
}

export type FailureKind = 'not-applied' | 'maybe-applied' | 'halt';

export interface SagaOptions {
  /** How a step's failure is read; see the module comment. */
  classify(step: SagaStep, error: unknown): FailureKind;
  /** Runs before each step; a throw here fails that step before it started, so the step itself needs no undoing. */
  before?(step: SagaStep): Promise<void>;
}

export interface CompensationReport {
  readonly step: string;
  readonly ok: boolean;
  readonly error?: unknown;
}

export type SagaResult =
  | { readonly ok: true; readonly completed: readonly string[] }
  | {
      readonly ok: false;
      readonly failedStep: string;
      readonly error: unknown;
      readonly kind: FailureKind;
      /** The steps that completed before the failure, in order. */
      readonly completed: readonly string[];
      /** The compensations that ran, in the order they ran (reverse of the steps). */
      readonly compensations: readonly CompensationReport[];
    };

export async function runSaga(steps: readonly SagaStep[], options: SagaOptions): Promise<SagaResult> {
  const completed: SagaStep[] = [];
  for (const step of steps) {
    let started = false;
    try {
      await options.before?.(step);
      started = true;
      await step.run();
      completed.push(step);
    } catch (error) {
      const classified = options.classify(step, error);
      const kind = !started && classified === 'maybe-applied' ? 'not-applied' : classified;
      const toUndo = kind === 'halt' ? [] : kind === 'maybe-applied' ? [...completed, step] : completed;
      return {
        ok: false,
        failedStep: step.name,
        error,
        kind,
        completed: completed.map((done) => done.name),
        compensations: await compensateInReverse(toUndo),
      };
    }
  }
  return { ok: true, completed: completed.map((done) => done.name) };
}

async function compensateInReverse(steps: readonly SagaStep[]): Promise<CompensationReport[]> {
  const reports: CompensationReport[] = [];
  for (const step of [...steps].reverse()) {
    if (step.compensate === undefined) continue;
    try {
      await step.compensate();
      reports.push({ step: step.name, ok: true });
    } catch (error) {
      reports.push({ step: step.name, ok: false, error });
    }
  }
  return reports;
}
