// The slots the sagas work in, read when /metrics is scraped: the sessions the saga runner handles
// at once (4 per summary slot) and the saga events queued for them, and the summary slots that
// automatic compactions summarise in and the summaries waiting for one. Totals only, as for the
// admission of writes (decision 0009): any valid key may read /metrics, so no tenant is named.
import type { Registry } from 'prom-client';
import { GaugeFamily } from './metric-families';

export interface SagaSlotUsage {
  readonly sagaSlots: number;
  readonly sagaSlotsInUse: number;
  readonly sagaEventsQueued: number;
  readonly summarySlots: number;
  readonly summarySlotsInUse: number;
  readonly summariesQueued: number;
}

export class SagaSlotMetrics {
  private readonly gauges: Readonly<Record<keyof SagaSlotUsage, GaugeFamily>>;

  constructor(registry: Registry) {
    const gauge = (name: string, help: string): GaugeFamily => new GaugeFamily(registry, { name, help });
    this.gauges = {
      sagaSlots: gauge(
        'strata_saga_slots',
        'Sessions the sagas may handle at once (4 × STRATA_SAGA_CONCURRENCY).',
      ),
      sagaSlotsInUse: gauge('strata_saga_slots_in_use', 'Sessions the sagas are handling now.'),
      sagaEventsQueued: gauge(
        'strata_saga_events_queued',
        'Saga events read and waiting for a slot or for the earlier events of their session.',
      ),
      summarySlots: gauge(
        'strata_summary_slots',
        'Summaries of automatic compactions that may run at once (STRATA_SAGA_CONCURRENCY).',
      ),
      summarySlotsInUse: gauge(
        'strata_summary_slots_in_use',
        'Summaries of automatic compactions running now.',
      ),
      summariesQueued: gauge(
        'strata_summary_slots_queued',
        'Automatic compactions started and waiting for a summary slot.',
      ),
    };
  }

  set(usage: SagaSlotUsage): void {
    for (const [key, gauge] of Object.entries(this.gauges) as [keyof SagaSlotUsage, GaugeFamily][]) {
      gauge.set({}, usage[key]);
    }
  }
}
