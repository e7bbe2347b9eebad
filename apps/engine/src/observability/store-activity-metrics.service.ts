// Feeds the metrics from the store's subscription (live from start-up, so appends made by
// other processes on the same store count too): session events by type, and every compaction
// and branch-summary attempt that ends.
import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import type { EventStore, Subscription } from '@strata/event-store';
import { readProjectedEvent } from '@strata/projections';
import { SESSION_STREAM_PREFIX } from '@strata/session';
import { StoreStreamLookups } from '../events-stream/store-stream-lookups';
import { EVENT_STORE } from '../shared/injection-tokens';
import { describeEndedAttempt, endedAttemptOf, needsAttemptStart } from './attempt-outcomes';
import { EngineMetrics } from './engine-metrics.service';

@Injectable()
export class StoreActivityMetrics implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('StoreActivityMetrics');
  private readonly lookups: StoreStreamLookups;
  private subscription: Subscription | undefined;
  private loop: Promise<void> | undefined;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly metrics: EngineMetrics,
  ) {
    this.lookups = new StoreStreamLookups(store);
  }

  onApplicationBootstrap(): void {
    const subscription = this.store.subscribe({
      fromPosition: 'end',
      filter: { streamPrefixes: [SESSION_STREAM_PREFIX] },
    });
    this.subscription = subscription;
    this.loop = this.consume(subscription);
  }

  async onModuleDestroy(): Promise<void> {
    await this.subscription?.close();
    await this.loop;
  }

  private async consume(subscription: Subscription): Promise<void> {
    try {
      for await (const message of subscription) {
        if (message.kind !== 'event') continue;
        const result = readProjectedEvent(message.event);
        if (result.kind === 'invalid') continue;
        const projected = result.event;
        this.metrics.sessionEvents.increment({ type: projected.event.type });
        const ended = endedAttemptOf(projected);
        if (ended === undefined) continue;
        const start = needsAttemptStart(projected)
          ? await this.lookups.attemptStartBefore(projected.streamId, projected.revision, ended.attemptId)
          : undefined;
        const attempt = describeEndedAttempt(projected, start);
        if (attempt === undefined) continue;
        if (attempt.kind === 'branch_summary') {
          this.metrics.branchSummaries.increment({ outcome: attempt.outcome });
          continue;
        }
        const labels = { trigger: attempt.trigger, outcome: attempt.outcome };
        this.metrics.compactions.increment(labels);
        if (attempt.seconds !== undefined) this.metrics.compactionDuration.observe(labels, attempt.seconds);
      }
    } catch (error) {
      this.logger.warn(
        `metrics stopped following the store: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
}
