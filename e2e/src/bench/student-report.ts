import { formatLoadResult } from './load.js';
import { formatMemoryPhases } from './memory-phases.js';
import type { StudentBenchResult } from './student-result.js';

/** The targets of the speed work, for the summary line. */
export const STUDENT_TARGETS = { requirementRatio: 0.6, detectorRatio: 0.8, proofMicros: 250, startMicros: 6_000, rssMb: 250 } as const;

export function formatStudentBench(result: StudentBenchResult): string {
  const by = (key: string) => result.paths.find((path) => path.key === key)!;
  const lines = result.paths.map(({ label, result: r, cpuMicros, cpuRatio }) =>
    `${formatLoadResult(label, r)}  cpu ${cpuMicros >= 1000 ? `${(cpuMicros / 1000).toFixed(2)} ms` : `${cpuMicros.toFixed(0)} µs`}` +
      (cpuRatio === undefined ? '' : `  ratio ${cpuRatio.toFixed(2)}`),
  );
  const sync = result.sync;
  if (result.startSteps !== undefined) {
    lines.push(`  whole start by step, server cpu: ${result.startSteps.map(({ step, cpuMicros }) => `${step} ${cpuMicros.toFixed(0)} µs`).join(', ')}`);
  }
  const statements = result.statementsPerStart;
  const statementCount = statements.reduce((sum, { statements: n }) => sum + n, 0);
  lines.push(
    `database statements per start: ${statementCount} ` +
      `(${statements.map(({ step, statements: n }) => `${step} ${n}`).join(', ')})`,
  );
  lines.push(
    `synchronized start: ${sync.students} students, ${sync.atOnce} at a time: ${(sync.durationMs / 1000).toFixed(1)} s, ` +
      `${sync.failures} failed, server cpu ${(sync.cpuMicrosPerStudent / 1000).toFixed(2)} ms per student (page scripts included)` +
      (sync.firstFailure === undefined ? '' : `; first failure: ${sync.firstFailure}`),
    `  p99 per step: ${sync.steps.map((step) => `${step.step} ${step.p99.toFixed(1)} ms`).join(', ')}`,
    ...formatMemoryPhases(result.memory),
    `service peak RSS ${result.peakRssMb.toFixed(0)} MB (node ${result.serviceFlags.join(' ') || 'without flags'}); ${result.logLines} log lines written; ` +
      `idle CPU ${(result.idleCpuMicrosPerSecond / 1000).toFixed(1)} ms per second`,
  );
  const t = STUDENT_TARGETS;
  const mark = (ok: boolean) => (ok ? 'ok' : 'MISS');
  const requirement = by('requirement').cpuRatio!;
  const detector = by('detector').cpuRatio!;
  const proof = by('proof').cpuMicros;
  const start = by('start').cpuMicros;
  const missed = Object.entries({
    'requirement-ratio': requirement >= t.requirementRatio,
    'detector-ratio': detector >= t.detectorRatio,
    'proof-cpu': proof <= t.proofMicros,
    'start-cpu': start <= t.startMicros,
    sync: sync.failures === 0,
    rss: result.peakRssMb < t.rssMb,
  })
    .filter(([, ok]) => !ok)
    .map(([name]) => name);
  lines.push(
    `SUMMARY requirement-ratio ${requirement.toFixed(2)} (${mark(requirement >= t.requirementRatio)} >=${t.requirementRatio}) ` +
      `detector-ratio ${detector.toFixed(2)} (${mark(detector >= t.detectorRatio)} >=${t.detectorRatio}) ` +
      `proof-cpu ${proof.toFixed(0)}us (${mark(proof <= t.proofMicros)} <=${t.proofMicros}) ` +
      `start-cpu ${(start / 1000).toFixed(2)}ms (${mark(start <= t.startMicros)} <=${t.startMicros / 1000}) ` +
      `statements ${statementCount} ` +
      `sync ${sync.students - sync.failures}/${sync.students} in ${(sync.durationMs / 1000).toFixed(1)}s ` +
      `rss ${result.peakRssMb.toFixed(0)}MB (${mark(result.peakRssMb < t.rssMb)} <${t.rssMb}) ` +
      (missed.length === 0 ? 'verdict PASS' : `verdict FAIL (${missed.join(', ')})`),
  );
  return lines.join('\n');
}
