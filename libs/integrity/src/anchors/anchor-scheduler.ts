// When the engine signs anchors: for each session stream at most one signature per interval
// (1 s by default), and never a head left unsigned. The first head noted for a stream is signed
// within a short batch delay (50 ms by default), with every other head due by then, in one write
// to the log (one commit for the heads of many sessions); heads noted during the following
// interval are held, and the latest of them is signed when the interval ends. `flush()` signs whatever is held at once (shutdown, tests). A
// failed write is reported and its heads are tried again an interval later. Nothing of this runs
// inside an append: noting a head costs a map lookup.
import type { Anchor, AnchorHead, AnchorSigningKey } from './anchor';
import type { AnchorLog } from './anchor-log';
import type { EntryToLog } from '../store-log/signed-log';
import { isHash } from '../hash-chain/event-seal';
import type { AppendResult, EventStore, EventToAppend, RecordedEvent } from '@strata/event-store';

export interface TenantAnchorHead extends AnchorHead {
  readonly tenant?: string;
}

export interface AnchorSchedulerOptions {
  readonly key: AnchorSigningKey;
  readonly log: AnchorLog;
  readonly clock?: () => Date;
  /** The shortest time between two signatures of one stream. 1,000 ms by default. */
  readonly intervalMs?: number;
  /**
   * How long a head due for signing waits for others, so that they are signed and written together:
   * one write to the log (one commit, one flush) for the heads of many sessions. 50 ms by default;
   * 0 signs at the end of the current turn of the event loop.
   */
  readonly batchDelayMs?: number;
  /** Told of every anchor written (metrics, tests). */
  readonly onWritten?: (anchors: readonly Anchor[]) => void;
  /** Told of a write that failed (its heads are tried again). */
  readonly onError?: (error: unknown) => void;
}

interface StreamWindow {
  /** The latest head noted and not yet signed. */
  pending: TenantAnchorHead | undefined;
  /** The revision last signed for the stream. */
  signed: bigint | undefined;
  timer: NodeJS.Timeout | undefined;
}

export const DEFAULT_ANCHOR_INTERVAL_MS = 1_000;
export const DEFAULT_ANCHOR_BATCH_DELAY_MS = 50;

export class AnchorScheduler {
  private readonly windows = new Map<string, StreamWindow>();
  private readonly due = new Set<string>();
  private pendingBatch: { cancel(): void } | undefined;
  private writing: Promise<void> = Promise.resolve();
  private readonly clock: () => Date;
  private readonly intervalMs: number;
  private closed = false;

  constructor(private readonly options: AnchorSchedulerOptions) {
    this.clock = options.clock ?? (() => new Date());
    this.intervalMs = options.intervalMs ?? DEFAULT_ANCHOR_INTERVAL_MS;
  }

  get keyId(): string {
    return this.options.key.keyId;
  }

  /** Notes that a stream's head is now `head` (an older head than one already noted is ignored). */
  note(head: TenantAnchorHead): void {
    if (this.closed) return;
    const window = this.windows.get(head.streamId);
    if (window === undefined) {
      this.windows.set(head.streamId, { pending: head, signed: undefined, timer: undefined });
      this.markDue(head.streamId);
      return;
    }
    if (window.signed !== undefined && head.revision <= window.signed) return;
    if (window.pending !== undefined && head.revision <= window.pending.revision) return;
    window.pending = head;
    if (window.timer === undefined) this.markDue(head.streamId);
  }

  /** Notes the head an append of sealed events left (streams with `prefix` only). */
  noteAppend(streamId: string, events: readonly EventToAppend[], result: AppendResult, prefix: string): void {
    if (!streamId.startsWith(prefix)) return;
    const last = events[events.length - 1];
    const headHash = last?.metadata?.['hash'];
    if (!isHash(headHash)) return;
    const tenant = last?.metadata?.['tenant'];
    this.note({
      streamId,
      revision: result.nextExpectedRevision,
      headHash,
      ...(typeof tenant === 'string' ? { tenant } : {}),
    });
  }

  /**
   * Drops the head held for a stream that was erased (nothing of it is signed any more): a head
   * held inside its interval would otherwise be signed after the erasure, for content gone.
   */
  forget(streamId: string): void {
    const window = this.windows.get(streamId);
    if (window === undefined) return;
    if (window.timer !== undefined) clearTimeout(window.timer);
    this.windows.delete(streamId);
    this.due.delete(streamId);
  }

  /** Signs every head held, whatever its interval, and waits until the log has them. */
  async flush(): Promise<void> {
    this.pendingBatch?.cancel();
    this.pendingBatch = undefined;
    for (const [streamId, window] of this.windows) if (window.pending !== undefined) this.due.add(streamId);
    this.signDue();
    await this.writing;
  }

  /** Signs what is held and stops: later heads are not signed. */
  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
    for (const window of this.windows.values()) if (window.timer !== undefined) clearTimeout(window.timer);
    this.windows.clear();
  }

  private markDue(streamId: string): void {
    this.due.add(streamId);
    if (this.pendingBatch !== undefined) return;
    const signNow = (): void => {
      this.pendingBatch = undefined;
      this.signDue();
    };
    const delay = this.options.batchDelayMs ?? DEFAULT_ANCHOR_BATCH_DELAY_MS;
    if (delay <= 0) {
      const immediate = setImmediate(signNow);
      this.pendingBatch = { cancel: () => clearImmediate(immediate) };
      return;
    }
    const timer = setTimeout(signNow, delay);
    timer.unref();
    this.pendingBatch = { cancel: () => clearTimeout(timer) };
  }

  private signDue(): void {
    if (this.due.size === 0) return;
    const time = this.clock();
    const batch: { head: TenantAnchorHead; logged: EntryToLog }[] = [];
    for (const streamId of this.due) {
      const window = this.windows.get(streamId);
      const head = window?.pending;
      if (window === undefined || head === undefined) continue;
      batch.push({ head, logged: anchorToLog(head, time) });
      window.pending = undefined;
      window.signed = head.revision;
      this.startInterval(streamId, window);
    }
    this.due.clear();
    if (batch.length === 0) return;
    this.writing = this.writing.then(async () => {
      try {
        const written = await this.options.log.append(
          batch.map((item) => item.logged),
          this.options.key,
        );
        this.options.onWritten?.(written as readonly Anchor[]);
      } catch (error) {
        this.options.onError?.(error);
        for (const { head } of batch) this.retryLater(head);
      }
    });
  }

  private startInterval(streamId: string, window: StreamWindow): void {
    if (window.timer !== undefined) clearTimeout(window.timer);
    window.timer = setTimeout(() => this.intervalEnded(streamId), this.intervalMs);
    window.timer.unref();
  }

  private intervalEnded(streamId: string): void {
    const window = this.windows.get(streamId);
    if (window === undefined) return;
    window.timer = undefined;
    if (window.pending === undefined) {
      this.windows.delete(streamId);
      return;
    }
    this.markDue(streamId);
  }

  private retryLater(head: TenantAnchorHead): void {
    if (this.closed) return;
    let window = this.windows.get(head.streamId);
    if (window === undefined) {
      window = { pending: undefined, signed: undefined, timer: undefined };
      this.windows.set(head.streamId, window);
    }
    if (window.signed === head.revision) window.signed = undefined;
    if (window.pending === undefined || window.pending.revision < head.revision) window.pending = head;
    if (window.timer === undefined) this.startInterval(head.streamId, window);
  }
}

/**
 * Signs the current head of one stream at once and logs it (`strata import`); nothing for an
 * empty stream or a last event without a seal. Returns the anchor written.
 */
export async function anchorStreamHead(
  store: EventStore,
  streamId: string,
  key: AnchorSigningKey,
  log: AnchorLog,
  time: Date = new Date(),
): Promise<Anchor | undefined> {
  let last: RecordedEvent | undefined;
  for await (const event of store.readStream(streamId, { direction: 'backwards', maxCount: 1 })) last = event;
  const headHash = last?.metadata['hash'];
  if (last === undefined || !isHash(headHash)) return undefined;
  const tenant = last.metadata['tenant'];
  const head = {
    streamId,
    revision: last.revision,
    headHash,
    ...(typeof tenant === 'string' ? { tenant } : {}),
  };
  const [anchor] = await log.append([anchorToLog(head, time)], key);
  return anchor as Anchor | undefined;
}

/** The log entry that anchors a head. */
function anchorToLog(head: TenantAnchorHead, time: Date): EntryToLog {
  return {
    body: {
      kind: 'anchor',
      stream: head.streamId,
      revision: head.revision.toString(),
      headHash: head.headHash,
    },
    time,
    ...(head.tenant !== undefined ? { tenant: head.tenant } : {}),
  };
}
