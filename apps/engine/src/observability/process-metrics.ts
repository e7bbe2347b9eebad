// The process and runtime metrics of prom-client (`process_resident_memory_bytes`,
// `process_cpu_seconds_total`, `nodejs_eventloop_lag_seconds`, heap, GC…), under the names
// prom-client gives them. They describe the process, not an engine, and collecting them starts
// observers that are never stopped (the GC observer, the event-loop delay monitor), so they are
// collected once per process into a registry of their own, and each engine's registry takes the
// same metric objects: two engines in one process (tests) show the same process, start no second
// observer, and never meet prom-client's global registry.
import { Registry, collectDefaultMetrics } from 'prom-client';

let processRegistry: Registry | undefined;

/** The process metrics, collected on first use. */
function processMetrics(): Registry {
  if (processRegistry === undefined) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/** Registers the process metrics in `registry` (read when it is scraped). */
export function addProcessMetrics(registry: Registry): void {
  const collected = processMetrics();
  for (const { name } of collected.getMetricsAsArray()) {
    const metric = collected.getSingleMetric(name);
    if (metric !== undefined) registry.registerMetric(metric);
  }
}
