// The projection port the read-model runner drives (STYLE.md habit 8): a named consumer of session events
// with the list of event types it handles, idempotent under redelivery, and resettable so that
// it can be rebuilt from the log at any time.
import type { SessionEventType } from '@strata/session';
import type { ProjectedEvent } from './projected-event';

/**
 * `durable`: the state outlives the process; the runner resumes it from its stored checkpoint.
 * `volatile`: the state lives in memory and starts empty; the runner starts it at the store's
 * head and never stores its checkpoint.
 */
export type ProjectionDurability = 'durable' | 'volatile';

export interface Projection {
  /** Unique among the runner's projections; names its checkpoint. */
  readonly name: string;
  readonly durability: ProjectionDurability;
  /** The event types it handles; it is never given any other. */
  readonly eventTypes: readonly SessionEventType[];
  /**
   * Optional cheap pre-check by session: false skips the event before it is even validated
   * (a cache that holds only some sessions). Absent means every session.
   */
  accepts?(sessionId: string): boolean;
  /**
   * Applies one event; the events of one session arrive in position order, different sessions'
   * may interleave. Contract: idempotent — an event at or below the position the projection
   * already reflects for the same document or session changes nothing. A throw is retried, then
   * sets the session aside for this projection (its later events are not applied) until a rebuild.
   */
  apply(event: ProjectedEvent): Promise<void>;
  /** The session was set aside: drop what is held of it. */
  forget?(sessionId: string): void;
  /**
   * The session's stream was erased (an erasure record of the store's log, read in the session's
   * order): remove every document and everything held of it, durable state too. Idempotent.
   */
  erase?(sessionId: string): Promise<void>;
  /** Makes everything applied so far durable and visible to queries; called before its checkpoint is stored. */
  flush(): Promise<void>;
  /** Forgets every document (the first step of a rebuild). */
  reset(): Promise<void>;
}
