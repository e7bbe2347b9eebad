// The tenant a session belongs to: the tenant recorded on the first event of its stream (the
// write side and the tenant guard keep every later event on the same tenant). Read from the store, so it is
// right at once after a write, and remembered for the streams seen recently.
import { LRUCache } from 'lru-cache';
import { type EventStore } from '@strata/event-store';
import { SessionNotFoundError } from '@strata/session-files';
import { sessionStreamName } from '@strata/session';
import { tenantOfMetadata } from '../shared/command-context';

export const DEFAULT_REMEMBERED_STREAMS = 10_000;

export class StreamTenants {
  /**
   * The first remembered goes out first (looked at with `peek`, so a look does not make it
   * recent); a stream's tenant never changes once its first event is written.
   */
  private readonly remembered: LRUCache<string, string>;

  constructor(
    private readonly store: EventStore,
    capacity = DEFAULT_REMEMBERED_STREAMS,
  ) {
    this.remembered = new LRUCache({ max: capacity });
  }

  /** The stream's tenant; undefined while the stream holds no event. */
  async tenantOfStream(streamId: string): Promise<string | undefined> {
    const known = this.remembered.peek(streamId);
    if (known !== undefined) return known;
    for await (const first of this.store.readStream(streamId, { maxCount: 1 })) {
      const tenant = tenantOfMetadata(first.metadata);
      this.remembered.set(streamId, tenant);
      return tenant;
    }
    return undefined;
  }

  tenantOfSession(sessionId: string): Promise<string | undefined> {
    return this.tenantOfStream(sessionStreamName(sessionId));
  }

  /**
   * Resolves when the session exists and belongs to `tenant`; otherwise throws
   * `SessionNotFoundError`, the same for another tenant's session as for a missing one.
   */
  async requireSessionOf(tenant: string, sessionId: string): Promise<void> {
    const owner = await this.tenantOfSession(sessionId);
    if (owner !== tenant) throw new SessionNotFoundError(sessionId);
  }

  /** Drops what is remembered of a stream (after it was erased). */
  forget(streamId: string): void {
    this.remembered.delete(streamId);
  }
}
