// Where an adapter append spends time that the raw baseline does not: serialising each event's
// data and metadata to JSON (the raw rows arrive serialised). Measured alone on the same events.
import { summariseDurations } from '../harness';
import type { EventBatchPlan } from './event-batches';

export interface SerialisationFigures {
  readonly events: number;
  readonly medianMs: number;
  readonly microsecondsPerEvent: number;
}

export function serialisationShare(plan: EventBatchPlan, rounds = 7): SerialisationFigures {
  const durations: bigint[] = [];
  let characters = 0;
  for (let round = 0; round < rounds; round += 1) {
    const started = process.hrtime.bigint();
    for (const event of plan.events) {
      characters += JSON.stringify(event.data).length + JSON.stringify(event.metadata ?? {}).length;
    }
    durations.push(process.hrtime.bigint() - started);
  }
  const summary = summariseDurations(durations);
  if (characters === 0) throw new Error('no event was serialised');
  return {
    events: plan.events.length,
    medianMs: Math.round(summary.medianMs * 100) / 100,
    microsecondsPerEvent: Math.round((summary.medianMs * 1000 * 100) / plan.events.length) / 100,
  };
}
