import type { MemoryFigures, MemoryPhase } from './server-process.js';

/** The service's memory, phase by phase, in order; a phase seen in several rounds keeps its highest figures and last end. */
export class MemoryPhases {
  private readonly phases = new Map<string, MemoryPhase>();

  add(seen: MemoryPhase): void {
    const before = this.phases.get(seen.phase);
    this.phases.set(seen.phase, before === undefined ? seen : { phase: seen.phase, end: seen.end, peak: maxFigures(before.peak, seen.peak) });
  }

  list(): MemoryPhase[] {
    return [...this.phases.values()];
  }
}

function maxFigures(a: MemoryFigures, b: MemoryFigures): MemoryFigures {
  return {
    rss: Math.max(a.rss, b.rss),
    heapTotal: Math.max(a.heapTotal, b.heapTotal),
    heapUsed: Math.max(a.heapUsed, b.heapUsed),
    external: Math.max(a.external, b.external),
    arrayBuffers: Math.max(a.arrayBuffers, b.arrayBuffers),
  };
}

/** One line per memory phase: the highest of each figure during it, and RSS and heap used at its end. */
export function formatMemoryPhases(phases: readonly MemoryPhase[]): string[] {
  const mb = (value: number) => `${value.toFixed(0).padStart(4)}`;
  return [
    `service memory, MB (peak during the phase: rss, heap used/total, external, array buffers; at its end: rss, heap used)`,
    ...phases.map(
      ({ phase, peak, end }) =>
        `  ${phase.padEnd(34)} peak rss ${mb(peak.rss)}  heap ${mb(peak.heapUsed)}/${mb(peak.heapTotal)}  ` +
        `ext ${mb(peak.external)}  ab ${mb(peak.arrayBuffers)}   end rss ${mb(end.rss)}  heap ${mb(end.heapUsed)}`,
    ),
  ];
}
