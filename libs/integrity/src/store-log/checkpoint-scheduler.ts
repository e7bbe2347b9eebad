// When an engine writes checkpoints (decision 0018): one at start (the store's genesis checkpoint
// when it has none), then every interval if the store changed since the last, and a last one when
// the engine stops, after the anchors still held are signed. One checkpoint is written at a time;
// a failed write is reported and tried again at the next interval. Nothing of this runs inside an
// append.
import type { EventStore } from '@strata/event-store';
import type { AnchorSigningKey } from '../anchors/anchor';
import type { CheckpointLogEntry, LogEntry } from './log-entry';
import type { SignedLog } from './signed-log';
import { writeCheckpoint } from './store-checkpoints';

export interface CheckpointSchedulerOptions {
  readonly store: EventStore;
  readonly log: SignedLog;
  readonly key: AnchorSigningKey;
  /** Between two checkpoints; 10,000 ms by default. */
  readonly intervalMs?: number;
  readonly clock?: () => Date;
  /** Told of the checkpoint entries written (witnesses, metrics). */
  readonly onWritten?: (entries: readonly CheckpointLogEntry[]) => void;
  readonly onError?: (error: unknown) => void;
}

export const DEFAULT_CHECKPOINT_INTERVAL_MS = 10_000;

export class CheckpointScheduler {
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<readonly LogEntry[]> = Promise.resolve([]);
  private closed = false;

  constructor(private readonly options: CheckpointSchedulerOptions) {}

  /** Writes the first checkpoint now (in the background) and the next ones every interval. */
  start(): void {
    if (this.timer !== undefined || this.closed) return;
    void this.checkpointNow().catch(() => undefined);
    this.timer = setInterval(() => {
      void this.checkpointNow().catch(() => undefined);
    }, this.options.intervalMs ?? DEFAULT_CHECKPOINT_INTERVAL_MS);
    this.timer.unref();
  }

  /** Writes a checkpoint after the one under way, if the store changed; the entries written. */
  checkpointNow(): Promise<readonly LogEntry[]> {
    const next = this.writing.catch(() => []).then(() => this.write());
    this.writing = next;
    return next;
  }

  /** Stops the interval and writes a last checkpoint. */
  async close(): Promise<void> {
    if (this.closed) return;
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    await this.checkpointNow().catch(() => undefined);
    this.closed = true;
  }

  private async write(): Promise<readonly LogEntry[]> {
    if (this.closed) return [];
    const { store, log, key, clock } = this.options;
    try {
      const entries = await writeCheckpoint(store, log, key, { time: (clock ?? (() => new Date()))() });
      const checkpoints = entries.filter((entry): entry is CheckpointLogEntry => entry.kind === 'checkpoint');
      if (checkpoints.length > 0) this.options.onWritten?.(checkpoints);
      return entries;
    } catch (error) {
      this.options.onError?.(error);
      throw error;
    }
  }
}
