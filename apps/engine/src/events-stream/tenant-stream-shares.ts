// How the event streams are shared between tenants (DESIGN.md decision 11): each tenant may keep
// its share of the streams open, at most a few of its streams read from the store at once, and
// its streams together hold a bounded number of bytes not yet sent to their clients. A stream
// waits for its own client before it reads again, so a tenant whose clients stop reading only
// slows that tenant's streams down.
import type { ReadGate } from '@strata/event-store';
import type { ServerResponse } from 'node:http';

export interface StreamShareLimits {
  /** Streams the engine serves at once (`STRATA_MAX_EVENT_STREAMS`). */
  readonly maxStreams: number;
  /** Streams one tenant may keep open. */
  readonly maxStreamsPerTenant: number;
  /** Streams of one tenant that may read a page from the store at the same time. */
  readonly readsPerTenant: number;
  /** Bytes one tenant's streams may hold unsent before none of them reads more. */
  readonly unsentBytesPerTenant: number;
}

/** Streams of one tenant reading from the store at once: enough to overlap, few enough to bound memory. */
export const READS_PER_TENANT = 2;

/**
 * A tenant's share: `STRATA_MAX_EVENT_STREAMS_PER_TENANT` when set, else an equal part of
 * `STRATA_MAX_EVENT_STREAMS` for each tenant that has a key (all of it in single-tenant mode).
 */
export function streamsPerTenant(maxStreams: number, tenantCount: number, configured?: number): number {
  if (configured !== undefined) return Math.min(configured, maxStreams);
  return Math.max(1, Math.floor(maxStreams / Math.max(1, tenantCount)));
}

/** What a share needs to know of one of its streams. */
export interface SharedStream {
  readonly response: ServerResponse;
  readonly closed: boolean;
}

/** A stream waiting at its share's gate, and how to wake it. */
interface Waiter {
  readonly stream: SharedStream;
  readonly wake: () => void;
}

/**
 * One tenant's streams: how many are open, how many read, what they hold unsent. A change (a
 * socket drained, a stream closed, a read ended) sums the unsent bytes once and wakes only the
 * waiting streams that may read now (and the closed ones, to leave): with a tenant's whole share
 * of streams waiting, waking each to sum every socket again cost the event loop streams² checks
 * per change (issue 22, attack (c)).
 */
export class TenantStreamShare {
  private readonly streams = new Set<SharedStream>();
  private reading = 0;
  private waiters: Waiter[] = [];

  constructor(private readonly limits: StreamShareLimits) {}

  get openStreams(): number {
    return this.streams.size;
  }

  get hasRoom(): boolean {
    return this.streams.size < this.limits.maxStreamsPerTenant;
  }

  add(stream: SharedStream): void {
    this.streams.add(stream);
    const changed = (): void => this.changed();
    stream.response.on('drain', changed);
    stream.response.on('close', changed);
  }

  remove(stream: SharedStream): void {
    this.streams.delete(stream);
    this.changed();
  }

  /** The gate a stream's subscription passes before each page it reads. */
  gateFor(stream: SharedStream): ReadGate {
    let inside = false;
    return {
      enter: async () => {
        while (!stream.closed && !this.mayRead(stream, this.unsentBytes())) {
          await new Promise<void>((wake) => this.waiters.push({ stream, wake }));
        }
        this.reading += 1;
        inside = true;
      },
      leave: () => {
        if (!inside) return;
        inside = false;
        this.reading -= 1;
        this.changed();
      },
    };
  }

  /** Bytes written to the tenant's streams that their sockets have not sent yet. */
  unsentBytes(): number {
    let total = 0;
    for (const stream of this.streams) total += stream.response.writableLength;
    return total;
  }

  /**
   * Wakes the waiting streams that may read now, in the order they came, as many as there are
   * free reads, and every closed one; the others keep waiting for the next change.
   */
  changed(): void {
    if (this.waiters.length === 0) return;
    const unsent = this.unsentBytes();
    let freeReads = this.limits.readsPerTenant - this.reading;
    const waiting: Waiter[] = [];
    for (const waiter of this.waiters) {
      if (waiter.stream.closed) waiter.wake();
      else if (freeReads > 0 && this.mayRead(waiter.stream, unsent)) {
        freeReads -= 1;
        waiter.wake();
      } else waiting.push(waiter);
    }
    this.waiters = waiting;
  }

  private mayRead(stream: SharedStream, unsent: number): boolean {
    return (
      !stream.response.writableNeedDrain &&
      this.reading < this.limits.readsPerTenant &&
      unsent < this.limits.unsentBytesPerTenant
    );
  }
}
