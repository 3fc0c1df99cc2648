import { describe, expect, it } from 'vitest';
import { runSaga, type FailureKind, type SagaStep } from '../../../src/domain/workflow/saga.js';

/** The saga runner on its own: order of steps, order of compensations, and how each kind of failure is undone. */

function recorder() {
  const log: string[] = [];
  const step = (name: string, options: { fail?: boolean; failUndo?: boolean; noUndo?: boolean } = {}): SagaStep => ({
    name,
    run: async () => {
      log.push(`run ${name}`);
      if (options.fail) throw new Error(`${name} failed`);
    },
    ...(options.noUndo
      ? {}
      : {
          compensate: async () => {
            log.push(`undo ${name}`);
            if (options.failUndo) throw new Error(`undo ${name} failed`);
          },
        }),
  });
  return { log, step };
}

const as = (kind: FailureKind) => ({ classify: () => kind });

describe('runSaga', () => {
  it('runs every step in order and compensates nothing when all succeed', async () => {
    const { log, step } = recorder();
    const result = await runSaga([step('a'), step('b'), step('c')], as('not-applied'));
    expect(result).toEqual({ ok: true, completed: ['a', 'b', 'c'] });
    expect(log).toEqual(['run a', 'run b', 'run c']);
  });

  it('undoes the completed steps in reverse order after a refusal, leaving the refused step alone', async () => {
    const { log, step } = recorder();
    const result = await runSaga([step('a'), step('b'), step('c', { fail: true }), step('d')], as('not-applied'));
    expect(log).toEqual(['run a', 'run b', 'run c', 'undo b', 'undo a']);
    expect(result).toMatchObject({ ok: false, failedStep: 'c', kind: 'not-applied', completed: ['a', 'b'] });
  });

  it('undoes the failed step first when its outcome is unknown', async () => {
    const { log, step } = recorder();
    await runSaga([step('a'), step('b', { fail: true })], as('maybe-applied'));
    expect(log).toEqual(['run a', 'run b', 'undo b', 'undo a']);
  });

  it('undoes nothing on a halt', async () => {
    const { log, step } = recorder();
    const result = await runSaga([step('a'), step('b', { fail: true })], as('halt'));
    expect(log).toEqual(['run a', 'run b']);
    expect(result).toMatchObject({ ok: false, kind: 'halt', compensations: [] });
  });

  it('tries every compensation and reports the ones that failed', async () => {
    const { log, step } = recorder();
    const result = await runSaga([step('a'), step('b', { failUndo: true }), step('c', { noUndo: true }), step('d', { fail: true })], as('not-applied'));
    expect(log).toEqual(['run a', 'run b', 'run c', 'run d', 'undo b', 'undo a']);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.compensations.map(({ step: name, ok }) => [name, ok])).toEqual([['b', false], ['a', true]]);
  });

  it('treats a failure before a step started as not applied, whatever the classification', async () => {
    const { log, step } = recorder();
    let calls = 0;
    const result = await runSaga([step('a'), step('b')], {
      classify: () => 'maybe-applied',
      before: async () => {
        calls += 1;
        if (calls === 2) throw new Error('precondition');
      },
    });
    expect(log).toEqual(['run a', 'undo a']);
    expect(result).toMatchObject({ ok: false, failedStep: 'b', kind: 'not-applied' });
  });
});
