// How far one processor has got, and flushing it. Its watermark over the events given to it
// (what it may store as its checkpoint), which of them are finished per partition and per tenant
// (so a read of one scope waits for that scope only), and the flush that makes them durable: the
// processor's own flush, then its checkpoint when it is durable. Flushes are coalesced (one at a
// time, again if more finished meanwhile); handled work is flushed at once when live, else every
// `checkpointInterval` events; with nothing to flush the position moves on in memory.
import { isAfter } from './positions';
import type { WaitScope } from './processor-runner-types';
import { ScopeProgress, type ScopeEntry } from './scope-progress';
import { Watermark, type WatermarkTicket } from './watermark';

/** An event given to the processor and not finished yet: its places in the progress. */
export interface OpenedEvent {
  readonly ticket: WatermarkTicket;
  /** Its place among the unfinished events of its partition and of its tenant. */
  readonly scopes: { readonly partition: ScopeEntry; readonly tenant: ScopeEntry };
}

/** What a flush writes: the processor's own state, then (for a durable one) the checkpoint. */
export interface FlushWrites {
  readonly flushProcessor: () => Promise<void> | undefined;
  /** Absent for a volatile processor, which stores no checkpoint. */
  readonly storeCheckpoint: ((position: bigint) => Promise<void>) | undefined;
}

export interface ProgressHooks {
  /** Whether finished events are flushed at once (live) or every `checkpointInterval` (catching up). */
  readonly isLive: () => boolean;
  /** The checkpoint moved (waiters may be released). */
  readonly onFlushed: () => void;
  /** A flush started in the background failed. */
  readonly onFailure: (error: unknown) => void;
}

export class ProcessorProgress {
  /** Every event at or below it is handled and flushed. */
  flushed: bigint | null = null;
  private stored: bigint | null = null;
  private watermark = new Watermark(null);
  private flushing: Promise<void> = Promise.resolve();
  private flushActive = false;
  private flushAgain = false;
  /** Events finished (handled, given up or parked) since the last flush. */
  private dirty = false;
  private sinceFlush = 0;
  /** Counts finished events; `flushedSeq` is the count the last completed flush covered. */
  private finishSeq = 0;
  private flushedSeq = 0;
  private readonly byPartition = new ScopeProgress();
  private readonly byTenant = new ScopeProgress();

  constructor(
    private readonly writes: FlushWrites,
    private readonly checkpointInterval: number,
    private readonly hooks: ProgressHooks,
  ) {}

  /** The last event given to the processor, finished or not. */
  get lastSeen(): bigint | null {
    return this.watermark.lastSeen;
  }

  /** Starts a run after `startAfter` (the stored checkpoint, for a durable processor). */
  startAfter(startAfter: bigint | null): void {
    this.stored = startAfter;
    this.flushed = startAfter;
    this.watermark = new Watermark(startAfter);
    this.sinceFlush = 0;
    this.byPartition.clear();
    this.byTenant.clear();
  }

  /** Forgets the position (a rebuild). */
  forget(): void {
    this.flushed = null;
  }

  /** An event given to the processor, in position order. */
  open(partition: string, tenant: string, position: bigint): OpenedEvent {
    const ticket = this.watermark.open(position);
    return {
      ticket,
      scopes: {
        partition: this.byPartition.opened(partition, ticket.position),
        tenant: this.byTenant.opened(tenant, ticket.position),
      },
    };
  }

  /** An event the processor does not handle: passed over. */
  pass(position: bigint): void {
    this.watermark.pass(position);
    this.afterProgress();
  }

  /** An opened event finished (handled, given up or parked). */
  finish(event: OpenedEvent): void {
    this.watermark.finish(event.ticket);
    this.finishSeq += 1;
    this.byPartition.finished(event.scopes.partition, this.finishSeq);
    this.byTenant.finished(event.scopes.tenant, this.finishSeq);
    this.dirty = true;
    this.afterProgress();
  }

  /**
   * Whether every event of the scope (a partition, or a tenant) at or below `position` is
   * handled and flushed — sooner than the checkpoint when other scopes hold it back (a read of
   * one session waits for that session only). Needs the runner to have read up to `position`.
   */
  hasReached(scope: WaitScope, position: bigint): boolean {
    if (!isAfter(position, this.flushed)) return true;
    const seen = this.watermark.lastSeen;
    if (seen === null || position > seen) return false;
    return 'partition' in scope
      ? this.byPartition.reached(scope.partition, position, this.flushedSeq)
      : this.byTenant.reached(scope.tenant, position, this.flushedSeq);
  }

  /** Flushes and stores the checkpoint (coalesced: one flush at a time, again if more finished). */
  flush(): Promise<void> {
    if (this.flushActive) {
      this.flushAgain = true;
      return this.flushing;
    }
    this.flushActive = true;
    this.flushing = this.flushLoop();
    return this.flushing;
  }

  /**
   * Passes over events up to a checkpoint the store reported (none of them for this processor),
   * and flushes now: the checkpoint is stored at the watermark, at most `position`, without
   * waiting for `checkpointInterval` more events (the store reports such checkpoints sparingly).
   */
  passCheckpoint(position: bigint): void {
    this.watermark.pass(position);
    this.flush().catch((error: unknown) => this.hooks.onFailure(error));
  }

  /**
   * After an event finished or was passed over: handled work is flushed at once when live, else
   * every `checkpointInterval` events; with nothing to flush the position moves on in memory
   * (the checkpoint is stored every `checkpointInterval` events, and on stop).
   */
  private afterProgress(): void {
    this.sinceFlush += 1;
    const due = this.sinceFlush >= this.checkpointInterval;
    if (this.dirty ? this.hooks.isLive() || due : due) {
      this.flush().catch((error: unknown) => this.hooks.onFailure(error));
      return;
    }
    this.movePastPassed();
  }

  /**
   * Flushes until nothing finished meanwhile; `flushActive` is cleared in the same turn as the
   * last check. Events passed over during the last flush (nothing to write for them) move the
   * position in memory at its end, as they would have with no flush under way: else a read
   * waiting for such an event would wait for the next event to come.
   */
  private async flushLoop(): Promise<void> {
    try {
      await this.flushOnce();
      while (this.flushAgain) await this.flushOnce();
    } finally {
      this.flushActive = false;
    }
    this.movePastPassed();
  }

  /** With nothing finished left to flush, the position moves to the watermark in memory. */
  private movePastPassed(): void {
    if (this.dirty || this.flushActive) return;
    const position = this.watermark.position;
    if (position !== null && isAfter(position, this.flushed)) this.flushedUpTo(position, this.finishSeq);
  }

  private async flushOnce(): Promise<void> {
    this.flushAgain = false;
    this.dirty = false;
    this.sinceFlush = 0;
    const target = this.watermark.position;
    const seq = this.finishSeq;
    await this.writes.flushProcessor();
    if (this.writes.storeCheckpoint !== undefined && target !== null && isAfter(target, this.stored)) {
      await this.writes.storeCheckpoint(target);
      this.stored = target;
    }
    this.flushedUpTo(target, seq);
  }

  /** Everything finished up to `seq` is flushed, and the checkpoint is `position`. */
  private flushedUpTo(position: bigint | null, seq: number): void {
    this.flushedSeq = Math.max(this.flushedSeq, seq);
    if (position !== null && isAfter(position, this.flushed)) this.flushed = position;
    this.byPartition.prune(this.flushed, this.flushedSeq);
    this.byTenant.prune(this.flushed, this.flushedSeq);
    this.hooks.onFlushed();
  }
}
