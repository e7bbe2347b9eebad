// The isolation suite's charts: tenant B's latencies, the engine's longest event-loop stall and
// its peak resident memory, for the quiet phase (the baseline) and during each attack of tenant A.
import { formatMilliseconds, type FigureGroup, type FigureRow } from '../harness';
import { letterOf, type PhaseResult } from './isolation-phase';

const MiB = 2 ** 20;

type Percentile = 'p50Ms' | 'p99Ms';

const figureSpecs: readonly {
  kind: 'append' | 'context' | 'health';
  percentile: Percentile;
  title: string;
}[] = [
  { kind: 'append', percentile: 'p99Ms', title: "B's POST /sessions/:id/entries (one small entry), p99" },
  { kind: 'context', percentile: 'p99Ms', title: "B's GET /sessions/:id/context, p99" },
  { kind: 'health', percentile: 'p99Ms', title: 'GET /health, p99' },
  { kind: 'append', percentile: 'p50Ms', title: "B's POST /sessions/:id/entries (one small entry), p50" },
  { kind: 'context', percentile: 'p50Ms', title: "B's GET /sessions/:id/context, p50" },
];

function phaseRow(phase: PhaseResult, value: number, display: string): FigureRow {
  return {
    label: phase.name === 'quiet' ? 'quiet engine' : `during (${letterOf(phase.name)}) ${phase.name}`,
    role: phase.name === 'quiet' ? 'baseline' : 'subject',
    value,
    display,
  };
}

export function phaseFigures(phases: readonly PhaseResult[]): FigureGroup[] {
  const latencyGroups = figureSpecs.map((spec): FigureGroup => ({
    title: `${spec.title}, quiet against each attack of tenant A`,
    unit: 'ms',
    lowerIsBetter: true,
    rows: phases.map((phase) => {
      const value = phase.tenantB[spec.kind][spec.percentile];
      return phaseRow(phase, value, formatMilliseconds(value));
    }),
  }));
  const memory: FigureGroup = {
    title: 'engine resident memory: largest VmRSS sampled during the phase',
    unit: 'MiB',
    lowerIsBetter: true,
    rows: phases.map((phase) => {
      const value = Math.round(phase.peakRssBytes / MiB);
      return phaseRow(phase, value, `${value} MiB`);
    }),
  };
  const stall: FigureGroup = {
    title:
      "engine's longest event-loop stall in the window (monitorEventLoopDelay inside the engine, less its 10 ms)",
    unit: 'ms',
    lowerIsBetter: true,
    rows: phases.map((phase) => {
      const value = phase.engineLoop.longestStallMs;
      return phaseRow(phase, value, formatMilliseconds(value));
    }),
  };
  return [...latencyGroups, stall, memory];
}
