// The slots automatic compactions summarise in (STRATA_SAGA_CONCURRENCY, and
// STRATA_SAGA_TENANT_CONCURRENCY for one tenant): an attempt is recorded as started as soon as
// its answer arrives, then waits here for a slot before it calls a model, so a burst of sessions
// crossing the threshold together is summarised side by side up to the bound, never all at
// once against a provider, and one tenant's burst never takes every slot (the partition
// scheduler of @strata/processing: a free slot goes to the tenant with the fewest running).
import { Inject, Injectable, Optional } from '@nestjs/common';
import { PartitionScheduler } from '@strata/processing';

export interface SummarySlotBounds {
  /** Summaries of automatic compactions running at once. */
  readonly concurrency: number;
  /** Of those, the most one tenant may hold. */
  readonly maxPerTenant: number;
}

export const DEFAULT_SUMMARY_SLOTS: SummarySlotBounds = { concurrency: 16, maxPerTenant: 16 };

/** The `SummarySlotBounds` of the engine. */
export const SUMMARY_SLOT_BOUNDS = Symbol('SUMMARY_SLOT_BOUNDS');

interface SlotJob {
  readonly work: () => Promise<void>;
}

@Injectable()
export class SummarySlots {
  private readonly scheduler: PartitionScheduler<SlotJob>;
  private next = 0;

  constructor(@Optional() @Inject(SUMMARY_SLOT_BOUNDS) bounds: SummarySlotBounds = DEFAULT_SUMMARY_SLOTS) {
    this.scheduler = new PartitionScheduler({
      concurrency: bounds.concurrency,
      maxPerTenant: Math.min(bounds.maxPerTenant, bounds.concurrency),
      run: (_key, job) => job.work(),
    });
  }

  /** Summaries running, and waiting for a slot. */
  get running(): number {
    return this.scheduler.runningCount;
  }

  get waiting(): number {
    return this.scheduler.size - this.scheduler.runningCount;
  }

  /** Runs `work` in a slot of `tenant`'s share, once one is free; resolves or rejects as it does. */
  run<Result>(tenant: string, work: () => Promise<Result>): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.next += 1;
      this.scheduler.enqueue(`summary-${this.next}`, tenant, {
        work: () => Promise.resolve().then(work).then(resolve, reject),
      });
    });
  }
}
