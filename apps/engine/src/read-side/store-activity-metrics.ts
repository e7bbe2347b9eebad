// Feeds the metrics from the store (so appends made by other processes on the same store count
// too): session events by type, and every compaction and branch-summary attempt that ends. A
// volatile processor of the read-model runner: it follows the store live from start-up.
import type { EventStore } from '@strata/event-store';
import type { Processor } from '@strata/processing';
import type { ProjectedEvent } from '@strata/projections';
import { sessionEventTypes } from '@strata/session';
import { StoreStreamLookups } from '../events-stream/store-stream-lookups';
import { describeEndedAttempt, endedAttemptOf, needsAttemptStart } from './attempt-outcomes';
import type { EngineMetrics } from '../observability/engine-metrics.service';

export function storeActivityMetrics(store: EventStore, metrics: EngineMetrics): Processor<ProjectedEvent> {
  const lookups = new StoreStreamLookups(store);
  return {
    name: 'store-activity-metrics',
    durability: 'volatile',
    eventTypes: sessionEventTypes,
    onFailure: 'skip',
    async handle(projected) {
      metrics.sessionEvents.increment({ type: projected.event.type });
      const ended = endedAttemptOf(projected);
      if (ended === undefined) return;
      const start = needsAttemptStart(projected)
        ? await lookups.attemptStartBefore(projected.streamId, projected.revision, ended.attemptId)
        : undefined;
      const attempt = describeEndedAttempt(projected, start);
      if (attempt === undefined) return;
      if (attempt.kind === 'branch_summary') {
        metrics.branchSummaries.increment({ outcome: attempt.outcome });
        return;
      }
      const labels = { trigger: attempt.trigger, outcome: attempt.outcome };
      metrics.compactions.increment(labels);
      if (attempt.seconds !== undefined) metrics.compactionDuration.observe(labels, attempt.seconds);
    },
  };
}
