// Events read back from a session stream, checked against the decider's schemas before any
// projection sees them (STYLE.md habit 15: events read from a store are a trust boundary).
// A recorded event that is not a session event is reported and skipped, never fatal.
import type { RecordedEvent } from '@strata/event-store';
import {
  SESSION_STREAM_PREFIX,
  sessionEventSchema,
  sessionEventTypes,
  type SessionEvent,
  type SessionEventType,
} from '@strata/session';

/** The tenant of events whose metadata names none (the integrity seal's default). */
export const DEFAULT_TENANT = 'default';

/** A validated session event with where and when the store recorded it. */
export interface ProjectedEvent {
  readonly sessionId: string;
  readonly streamId: string;
  readonly eventId: string;
  /** 0-based revision in its stream. */
  readonly revision: bigint;
  /** Global position in the store. */
  readonly position: bigint;
  /** ISO time the store recorded the event. */
  readonly recordedAt: string;
  /** `metadata.tenant`, else `default`. */
  readonly tenant: string;
  /** `metadata.actor` (who wrote it: an API key's name, the engine), when it records one. */
  readonly actor?: string;
  /** `metadata.onBehalfOf` (who the writer acted for), when it records one. */
  readonly onBehalfOf?: string;
  /** `metadata.hash`, the event's integrity hash (covers its data), when it was sealed. */
  readonly eventHash?: string;
  readonly event: SessionEvent;
}

export type InvalidEventReason = 'not_a_session_stream' | 'unknown_type' | 'invalid_data';

/** Why a recorded event was skipped. */
export interface InvalidEventReport {
  readonly streamId: string;
  readonly eventId: string;
  readonly type: string;
  readonly revision: bigint;
  readonly position: bigint;
  readonly reason: InvalidEventReason;
  readonly detail: string;
}

export type ReadProjectedEventResult =
  | { readonly kind: 'valid'; readonly event: ProjectedEvent }
  | { readonly kind: 'invalid'; readonly report: InvalidEventReport };

const knownTypes: ReadonlySet<string> = new Set(sessionEventTypes);

export function isSessionEventType(type: string): type is SessionEventType {
  return knownTypes.has(type);
}

/** The session id of a `session-<id>` stream, or undefined for any other stream. */
export function sessionIdOfStream(streamId: string): string | undefined {
  if (!streamId.startsWith(SESSION_STREAM_PREFIX)) return undefined;
  const sessionId = streamId.slice(SESSION_STREAM_PREFIX.length);
  return sessionId === '' ? undefined : sessionId;
}

export function tenantOf(metadata: Readonly<Record<string, unknown>>): string {
  const tenant = metadata['tenant'];
  return typeof tenant === 'string' && tenant !== '' ? tenant : DEFAULT_TENANT;
}

/** `{ [key]: value }` when the metadata holds a non-empty string there, else nothing. */
function textOf<Key extends 'actor' | 'onBehalfOf' | 'hash'>(
  metadata: Readonly<Record<string, unknown>>,
  key: Key,
): Partial<Record<Key, string>> {
  const value = metadata[key];
  return typeof value === 'string' && value !== '' ? ({ [key]: value } as Record<Key, string>) : {};
}

function hashOf(metadata: Readonly<Record<string, unknown>>): { eventHash?: string } {
  const { hash } = textOf(metadata, 'hash');
  return hash === undefined ? {} : { eventHash: hash };
}

function invalid(
  recorded: RecordedEvent,
  reason: InvalidEventReason,
  detail: string,
): ReadProjectedEventResult {
  return {
    kind: 'invalid',
    report: {
      streamId: recorded.streamId,
      eventId: recorded.id,
      type: recorded.type,
      revision: recorded.revision,
      position: recorded.position,
      reason,
      detail,
    },
  };
}

/** Checks a recorded event; the checked value itself is kept (the schemas do not transform). */
export function readProjectedEvent(recorded: RecordedEvent): ReadProjectedEventResult {
  const sessionId = sessionIdOfStream(recorded.streamId);
  if (sessionId === undefined) {
    return invalid(recorded, 'not_a_session_stream', `stream ${recorded.streamId} is not a session stream`);
  }
  if (!isSessionEventType(recorded.type)) {
    return invalid(recorded, 'unknown_type', `no session event is called ${recorded.type}`);
  }
  const candidate = { type: recorded.type, data: recorded.data };
  const parsed = sessionEventSchema.safeParse(candidate);
  if (!parsed.success) {
    const [first] = parsed.error.issues;
    const location = first && first.path.length > 0 ? first.path.map(String).join('.') : '(root)';
    return invalid(recorded, 'invalid_data', `${first?.message ?? 'invalid'} at ${location}`);
  }
  return {
    kind: 'valid',
    event: {
      sessionId,
      streamId: recorded.streamId,
      eventId: recorded.id,
      revision: recorded.revision,
      position: recorded.position,
      recordedAt: recorded.createdAt,
      tenant: tenantOf(recorded.metadata),
      ...textOf(recorded.metadata, 'actor'),
      ...textOf(recorded.metadata, 'onBehalfOf'),
      ...hashOf(recorded.metadata),
      event: candidate as SessionEvent,
    },
  };
}
