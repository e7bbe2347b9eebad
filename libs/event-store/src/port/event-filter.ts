// Shared matching of EventFilter (event types with '*' prefixes, stream prefixes), so every
// adapter filters reads and subscriptions the same way.
import type { EventFilter } from './event-store';

function typeMatches(type: string, pattern: string): boolean {
  return pattern.endsWith('*') ? type.startsWith(pattern.slice(0, -1)) : type === pattern;
}

/** True when the event passes every non-empty list of the filter (no filter passes everything). */
export function matchesEventFilter(
  event: { readonly streamId: string; readonly type: string },
  filter: EventFilter | undefined,
): boolean {
  if (filter === undefined) return true;
  const { eventTypes, streamPrefixes } = filter;
  if (eventTypes !== undefined && eventTypes.length > 0) {
    if (!eventTypes.some((pattern) => typeMatches(event.type, pattern))) return false;
  }
  if (streamPrefixes !== undefined && streamPrefixes.length > 0) {
    if (!streamPrefixes.some((prefix) => event.streamId.startsWith(prefix))) return false;
  }
  return true;
}
