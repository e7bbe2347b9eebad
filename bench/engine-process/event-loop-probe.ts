// Preloaded into the engine child, before bin/engine.js and without changing the engine's code:
//   node --require scripts/register.js --require bench/engine-process/event-loop-probe.ts bin/engine.js
// It watches the engine's own event loop with `perf_hooks.monitorEventLoopDelay` (a libuv timer
// every 10 ms whose histogram records the time between two of its turns) and answers the bench
// over the IPC channel the bench opened: `reset` empties the histogram at the start of a window,
// `report` gives its figures at the end. A turn that came late by N ms means the loop served
// nobody for about N ms: the longest stall is the histogram's maximum less the 10 ms the timer
// waits anyway (so it is known to within those 10 ms).
import { monitorEventLoopDelay } from 'node:perf_hooks';

export const PROBE_RESOLUTION_MS = 10;

export interface ProbeRequest {
  readonly probe: 'reset' | 'report';
  readonly id: number;
}

export interface LoopDelayReport {
  /** Turns of the probe's timer recorded since the last reset. */
  readonly samples: number;
  /** The longest time between two turns, less the timer's own 10 ms (0 when none was late). */
  readonly longestStallMs: number;
  /** The histogram's maximum, mean and percentiles as recorded (each includes the 10 ms wait). */
  readonly maxMs: number;
  readonly meanMs: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly resolutionMs: number;
}

export interface ProbeAnswer {
  readonly probe: 'reset' | 'report';
  readonly id: number;
  readonly report?: LoopDelayReport;
}

const histogram = monitorEventLoopDelay({ resolution: PROBE_RESOLUTION_MS });
histogram.enable();

function currentReport(): LoopDelayReport {
  const milliseconds = (nanoseconds: number): number => Math.round(nanoseconds / 1e4) / 100;
  const samples = histogram.count;
  const maxMs = samples === 0 ? 0 : milliseconds(histogram.max);
  return {
    samples,
    longestStallMs: Math.max(0, Math.round((maxMs - PROBE_RESOLUTION_MS) * 100) / 100),
    maxMs,
    meanMs: samples === 0 ? 0 : milliseconds(histogram.mean),
    p50Ms: samples === 0 ? 0 : milliseconds(histogram.percentile(50)),
    p99Ms: samples === 0 ? 0 : milliseconds(histogram.percentile(99)),
    resolutionMs: PROBE_RESOLUTION_MS,
  };
}

function isProbeRequest(message: unknown): message is ProbeRequest {
  if (typeof message !== 'object' || message === null) return false;
  const { probe, id } = message as { probe?: unknown; id?: unknown };
  return (probe === 'reset' || probe === 'report') && typeof id === 'number';
}

if (process.send !== undefined) {
  process.on('message', (message: unknown) => {
    if (!isProbeRequest(message)) return;
    if (message.probe === 'reset') histogram.reset();
    const answer: ProbeAnswer =
      message.probe === 'reset'
        ? { probe: 'reset', id: message.id }
        : { probe: 'report', id: message.id, report: currentReport() };
    process.send?.(answer);
  });
  // the channel must not keep the engine alive once it has closed its server on SIGTERM
  process.channel?.unref();
}
