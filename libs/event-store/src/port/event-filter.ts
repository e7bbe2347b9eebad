// Shared matching of EventFilter (event types with '*' prefixes, stream prefixes, the tenant),
// so every adapter filters reads and subscriptions the same way.
import { ERASURE_LOG_STREAM, type EventFilter } from './event-store';

/** The tenant of events whose metadata names none. */
export const DEFAULT_EVENT_TENANT = 'default';

/** An event's tenant: `metadata.tenant` when it is a non-empty string, else `'default'`. */
export function eventTenantOf(metadata: Readonly<Record<string, unknown>>): string {
  const tenant = metadata['tenant'];
  return typeof tenant === 'string' && tenant !== '' ? tenant : DEFAULT_EVENT_TENANT;
}

function typeMatches(type: string, pattern: string): boolean {
  return pattern.endsWith('*') ? type.startsWith(pattern.slice(0, -1)) : type === pattern;
}

/**
 * True when the event passes every criterion of the filter (no filter passes everything but the
 * erasure log, which only `includeErasures` lets through, with its tenant).
 */
export function matchesEventFilter(
  event: {
    readonly streamId: string;
    readonly type: string;
    readonly metadata: Readonly<Record<string, unknown>>;
  },
  filter: EventFilter | undefined,
): boolean {
  if (event.streamId === ERASURE_LOG_STREAM) {
    if (filter?.includeErasures !== true) return false;
    return filter.tenant === undefined || eventTenantOf(event.metadata) === filter.tenant;
  }
  if (filter === undefined) return true;
  const { eventTypes, streamPrefixes, tenant } = filter;
  if (eventTypes !== undefined && eventTypes.length > 0) {
    if (!eventTypes.some((pattern) => typeMatches(event.type, pattern))) return false;
  }
  if (streamPrefixes !== undefined && streamPrefixes.length > 0) {
    if (!streamPrefixes.some((prefix) => event.streamId.startsWith(prefix))) return false;
  }
  return tenant === undefined || eventTenantOf(event.metadata) === tenant;
}
