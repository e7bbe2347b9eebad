// The writing half of an agent host's loop (docs/agent-hosts.md) on one session: it holds the
// session's writer lease (taken when missing, renewed before it ends) and appends each batch of
// a turn under it, with `expectedLeafId` and the lease token. A batch built from the leaf is
// built again under the leaf a conflict names; a batch whose parents are fixed (tool results
// under their call) is never moved to another parent: its conflict is the host's to handle, by
// reading the context again. The lease makes such conflicts rare: only a host that lost its
// lease (it expired) meets one.
import type { AppendResult, SessionEntry, SessionLease } from './api-types';
import { StrataApiError } from './errors';
import type { StrataClient } from './strata-client';

export interface SessionHostOptions {
  /** Who holds the lease (shown to other writers and in the audit). */
  readonly holder: string;
  /** How long a lease lasts from each take or renewal, in ms (1,000 to 600,000); 60,000 by default. */
  readonly ttlMs?: number;
  /** Renew when less than this is left, in ms; a third of `ttlMs` by default. */
  readonly renewWithinMs?: number;
  /** How many times a batch is sent before its last refusal is thrown; 5 by default. */
  readonly maxAttempts?: number;
  /** Epoch milliseconds; `Date.now` by default. */
  readonly now?: () => number;
}

/** A batch of a turn: entries with their parents fixed, or built under a given leaf. */
export type TurnBatch = readonly SessionEntry[] | ((leafId: string | null) => readonly SessionEntry[]);

export interface AppendTurnOptions {
  /** The leaf the batch goes under; by default the leaf of the host's last append, else the first entry's parent. */
  readonly expectedLeafId?: string | null;
  /** Writes the batch once even when its answer was lost (the client then resends it). */
  readonly idempotencyKey?: string;
}

function isConflict(error: unknown, reason: string): error is StrataApiError {
  return error instanceof StrataApiError && error.status === 409 && error.reason === reason;
}

export class SessionHost {
  private lease: SessionLease | undefined;
  private leafId: string | null | undefined;
  private readonly ttlMs: number;
  private readonly renewWithinMs: number;
  private readonly maxAttempts: number;
  private readonly now: () => number;

  constructor(
    private readonly client: StrataClient,
    readonly sessionId: string,
    readonly options: SessionHostOptions,
  ) {
    this.ttlMs = options.ttlMs ?? 60_000;
    this.renewWithinMs = options.renewWithinMs ?? Math.floor(this.ttlMs / 3);
    this.maxAttempts = options.maxAttempts ?? 5;
    this.now = options.now ?? Date.now;
  }

  /** The leaf after the host's last append (undefined before the first). */
  get leaf(): string | null | undefined {
    return this.leafId;
  }

  /**
   * The lease, taken when the host holds none and renewed when it nears its end. Throws the
   * engine's 409 (`lease_held`, with `holder` and `expiresAt`) while another writer holds it.
   */
  async holdLease(): Promise<SessionLease> {
    const held = this.lease;
    if (held !== undefined && Date.parse(held.expiresAt) - this.now() > this.renewWithinMs) return held;
    if (held !== undefined) {
      try {
        this.lease = await this.client.renewLease(this.sessionId, held.token, this.ttlMs);
        return this.lease;
      } catch (error) {
        if (!(error instanceof StrataApiError) || error.status !== 409) throw error;
        this.lease = undefined;
      }
    }
    this.lease = await this.client.takeLease(this.sessionId, this.options.holder, this.ttlMs);
    return this.lease;
  }

  /**
   * Appends one batch of a turn under the lease (holding it first). On a leaf conflict a batch
   * built from the leaf is built again under the leaf the engine names; a fixed batch is not,
   * and the conflict is thrown. A lease that ended meanwhile (`lease_stale`) is taken again.
   */
  async appendTurn(batch: TurnBatch, options: AppendTurnOptions = {}): Promise<AppendResult> {
    let leaf = this.startingLeaf(batch, options);
    let refusal: unknown;
    for (let attempt = 1; attempt <= this.maxAttempts; attempt += 1) {
      const lease = await this.holdLease();
      const entries = typeof batch === 'function' ? batch(leaf) : batch;
      try {
        const result = await this.client.append(this.sessionId, entries, {
          expectedLeafId: leaf,
          leaseToken: lease.token,
          ...(options.idempotencyKey !== undefined ? { idempotencyKey: options.idempotencyKey } : {}),
        });
        this.leafId = result.leafId;
        return result;
      } catch (error) {
        refusal = error;
        if (isConflict(error, 'lease_stale')) {
          this.lease = undefined;
          continue;
        }
        if (!isConflict(error, 'leaf_conflict') || typeof batch !== 'function') throw error;
        leaf = error.currentLeafId ?? null;
      }
    }
    throw refusal;
  }

  /** Releases the lease the host holds, if any. */
  async release(): Promise<void> {
    const held = this.lease;
    this.lease = undefined;
    if (held !== undefined) await this.client.releaseLease(this.sessionId, held.token);
  }

  private startingLeaf(batch: TurnBatch, options: AppendTurnOptions): string | null {
    if (options.expectedLeafId !== undefined) return options.expectedLeafId;
    if (this.leafId !== undefined) return this.leafId;
    if (typeof batch !== 'function') return batch[0]?.parentId ?? null;
    return null;
  }
}
