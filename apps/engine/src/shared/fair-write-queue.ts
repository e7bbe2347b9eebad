// The fair queue of write work (DESIGN.md decision 11, docs/decisions/0009): a write is admitted
// while the bytes and the number of writes in progress stay within the engine's budget and its
// tenant's share; the others wait in their tenant's queue (first in, first out), and the waiting
// writes of different tenants are ordered by start-time fair queuing weighted by bytes (SFQ, with
// the budget as its depth bound, as storage schedulers share one device). Each write is tagged when
// it arrives with a virtual start: the later of the virtual time (the start of the last write
// admitted) and the end of its tenant's previous write, ends and starts counted in bytes. The
// write with the earliest start among those their tenant's share allows goes next, and only when
// the budget has room for it, so a large write first in that order is never passed for ever by
// small ones. A tenant's large writes so queue behind its own, never ahead of another tenant's
// small ones. The queue knows no time: its caller bounds a wait by withdrawing the write.

export interface WriteBounds {
  /** Bytes of the writes in progress, engine-wide. */
  readonly bytes: number;
  /** Bytes of one tenant's writes in progress (a write declaring more counts as this much). */
  readonly bytesPerTenant: number;
  /** Writes in progress, engine-wide. */
  readonly writes: number;
  readonly writesPerTenant: number;
  /** Writes one tenant may have waiting (0: none wait, a write is admitted at once or refused). */
  readonly queuedPerTenant: number;
}

/** Why a write is not admitted: its tenant's own share, or the engine's budget, is taken. */
export type WriteRefusal = 'tenant_share' | 'engine_budget';

export type WriteEntry =
  | { readonly outcome: 'admitted'; readonly release: () => void }
  /** `withdraw` takes a waiting write out and says what held it; undefined once admitted. */
  | { readonly outcome: 'queued'; readonly withdraw: () => WriteRefusal | undefined }
  | { readonly outcome: 'refused'; readonly refusal: WriteRefusal };

export interface WriteUsage {
  readonly bytes: number;
  readonly writes: number;
  readonly queued: number;
}

/** What a write weighs in the fair order besides its bytes: the work every write does. */
export const WRITE_BASE_WEIGHT = 1024;

interface TenantState {
  bytes: number;
  writes: number;
  /** The virtual end of the tenant's latest write. */
  finish: number;
  readonly waiting: Waiting[];
}

interface Waiting {
  readonly tenant: TenantState;
  readonly cost: number;
  readonly start: number;
  readonly sequence: number;
  readonly onAdmitted: (release: () => void) => void;
  release?: () => void;
}

export class FairWriteQueue {
  private readonly tenants = new Map<string, TenantState>();
  private bytes = 0;
  private writes = 0;
  private queued = 0;
  private virtualTime = 0;
  private sequence = 0;
  /** The write `enter` is deciding on: it is answered by the return value, not by its callback. */
  private entering: Waiting | undefined;

  constructor(readonly bounds: WriteBounds) {
    const positive = ['bytes', 'bytesPerTenant', 'writes', 'writesPerTenant'] as const;
    for (const name of positive) {
      if (!Number.isSafeInteger(bounds[name]) || bounds[name] < 1) {
        throw new RangeError(`${name} must be a positive integer, not ${bounds[name]}`);
      }
    }
    if (!Number.isSafeInteger(bounds.queuedPerTenant) || bounds.queuedPerTenant < 0) {
      throw new RangeError(`queuedPerTenant must be an integer ≥ 0, not ${bounds.queuedPerTenant}`);
    }
    if (bounds.bytesPerTenant > bounds.bytes || bounds.writesPerTenant > bounds.writes) {
      throw new RangeError("a tenant's share cannot be larger than the engine's budget");
    }
  }

  /**
   * Asks to admit a write of `bytes` for `tenant`: admitted now, queued (`onAdmitted` is called
   * with its release once admitted), or refused because its tenant's queue is full.
   */
  enter(tenant: string, bytes: number, onAdmitted: (release: () => void) => void): WriteEntry {
    const state = this.tenantState(tenant);
    const cost = Math.min(Math.max(0, Math.ceil(bytes)), this.bounds.bytesPerTenant);
    const finishBefore = state.finish;
    const start = Math.max(this.virtualTime, state.finish);
    state.finish = start + cost + WRITE_BASE_WEIGHT;
    const waiting: Waiting = { tenant: state, cost, start, sequence: this.sequence++, onAdmitted };
    state.waiting.push(waiting);
    this.queued += 1;
    this.entering = waiting;
    try {
      this.pump();
    } finally {
      this.entering = undefined;
    }
    if (waiting.release !== undefined) return { outcome: 'admitted', release: waiting.release };
    if (state.waiting.length > this.bounds.queuedPerTenant) {
      const refusal = this.heldBy(waiting);
      this.remove(waiting);
      state.finish = finishBefore;
      this.forgetIdle();
      return { outcome: 'refused', refusal };
    }
    return { outcome: 'queued', withdraw: () => this.withdraw(waiting) };
  }

  /** The bytes and writes in progress and the writes waiting, engine-wide or of one tenant. */
  usage(tenant?: string): WriteUsage {
    if (tenant === undefined) return { bytes: this.bytes, writes: this.writes, queued: this.queued };
    const state = this.tenants.get(tenant);
    return { bytes: state?.bytes ?? 0, writes: state?.writes ?? 0, queued: state?.waiting.length ?? 0 };
  }

  private tenantState(tenant: string): TenantState {
    let state = this.tenants.get(tenant);
    if (state === undefined) {
      state = { bytes: 0, writes: 0, finish: 0, waiting: [] };
      this.tenants.set(tenant, state);
    }
    return state;
  }

  private withdraw(waiting: Waiting): WriteRefusal | undefined {
    if (waiting.release !== undefined || !waiting.tenant.waiting.includes(waiting)) return undefined;
    const refusal = this.heldBy(waiting);
    this.remove(waiting);
    this.pump();
    return refusal;
  }

  private remove(waiting: Waiting): void {
    const queue = waiting.tenant.waiting;
    queue.splice(queue.indexOf(waiting), 1);
    this.queued -= 1;
  }

  /**
   * What holds a waiting write: its tenant's share when, with the tenant's writes in progress and
   * those waiting ahead of it, the share has no room for it; the engine's budget otherwise.
   */
  private heldBy(waiting: Waiting): WriteRefusal {
    const { tenant } = waiting;
    let bytes = tenant.bytes + waiting.cost;
    let writes = tenant.writes + 1;
    for (const ahead of tenant.waiting) {
      if (ahead === waiting) break;
      bytes += ahead.cost;
      writes += 1;
    }
    return bytes > this.bounds.bytesPerTenant || writes > this.bounds.writesPerTenant
      ? 'tenant_share'
      : 'engine_budget';
  }

  /** Admits waiting writes in fair order while the budget has room for the first of them. */
  private pump(): void {
    const admitted: Waiting[] = [];
    for (;;) {
      const next = this.firstEligible();
      if (next === undefined || !this.engineHasRoom(next)) break;
      this.remove(next);
      this.virtualTime = Math.max(this.virtualTime, next.start);
      next.tenant.bytes += next.cost;
      next.tenant.writes += 1;
      this.bytes += next.cost;
      this.writes += 1;
      next.release = this.releaseOf(next);
      admitted.push(next);
    }
    this.forgetIdle();
    for (const write of admitted) {
      if (write !== this.entering && write.release !== undefined) write.onAdmitted(write.release);
    }
  }

  /** The waiting write with the earliest virtual start among those their tenant's share allows. */
  private firstEligible(): Waiting | undefined {
    let first: Waiting | undefined;
    for (const tenant of this.tenants.values()) {
      const head = tenant.waiting[0];
      if (head === undefined || !this.shareHasRoom(head)) continue;
      if (
        first === undefined ||
        head.start < first.start ||
        (head.start === first.start && head.sequence < first.sequence)
      ) {
        first = head;
      }
    }
    return first;
  }

  private shareHasRoom(waiting: Waiting): boolean {
    const { tenant } = waiting;
    return (
      tenant.bytes + waiting.cost <= this.bounds.bytesPerTenant && tenant.writes < this.bounds.writesPerTenant
    );
  }

  private engineHasRoom(waiting: Waiting): boolean {
    return this.bytes + waiting.cost <= this.bounds.bytes && this.writes < this.bounds.writes;
  }

  private releaseOf(write: Waiting): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      write.tenant.bytes -= write.cost;
      write.tenant.writes -= 1;
      this.bytes -= write.cost;
      this.writes -= 1;
      this.pump();
    };
  }

  /**
   * Forgets the tenants whose writes no longer count in the order (nothing in progress or
   * waiting, and their last write's end passed by the virtual time); once the engine is idle the
   * order starts afresh.
   */
  private forgetIdle(): void {
    if (this.queued === 0 && this.writes === 0) {
      this.tenants.clear();
      this.virtualTime = 0;
      return;
    }
    for (const [name, tenant] of this.tenants) {
      if (tenant.writes === 0 && tenant.waiting.length === 0 && tenant.finish <= this.virtualTime) {
        this.tenants.delete(name);
      }
    }
  }
}
