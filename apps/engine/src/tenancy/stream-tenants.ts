// The tenant a session belongs to: the tenant recorded on the first event of its stream (the
// write side and the tenant guard keep every later event on the same tenant). Read from the store, so it is
// right at once after a write, and remembered for the streams seen recently.
import { type EventStore } from '@strata/event-store';
import { SessionNotFoundError } from '@strata/session-files';
import { sessionStreamName } from '@strata/session';
import { tenantOfMetadata } from '../shared/command-context';

export const DEFAULT_REMEMBERED_STREAMS = 10_000;

export class StreamTenants {
  /** Oldest first; a stream's tenant never changes once its first event is written. */
  private readonly remembered = new Map<string, string>();

  constructor(
    private readonly store: EventStore,
    private readonly capacity = DEFAULT_REMEMBERED_STREAMS,
  ) {}

  /** The stream's tenant; undefined while the stream holds no event. */
  async tenantOfStream(streamId: string): Promise<string | undefined> {
    const known = this.remembered.get(streamId);
    if (known !== undefined) return known;
    for await (const first of this.store.readStream(streamId, { maxCount: 1 })) {
      const tenant = tenantOfMetadata(first.metadata);
      this.remember(streamId, tenant);
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

  private remember(streamId: string, tenant: string): void {
    this.remembered.set(streamId, tenant);
    if (this.remembered.size <= this.capacity) return;
    const oldest = this.remembered.keys().next();
    if (oldest.done !== true) this.remembered.delete(oldest.value);
  }
}
