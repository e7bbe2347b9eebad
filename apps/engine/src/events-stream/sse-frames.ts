// Server-sent-events framing (WHATWG HTML, "server-sent events"): one frame per public event,
// comments for heartbeats and progress. Data is one JSON line, so it never needs splitting.
import type { PublicEvent } from './public-events';

export const SSE_CONTENT_TYPE = 'text/event-stream';
/** The reconnection delay suggested to clients. */
export const RECONNECT_DELAY_MS = 2_000;

/** One event's frame in three parts, so that a large event's JSON is written without a copy. */
export function eventFrameParts(event: PublicEvent): readonly [string, string, string] {
  return [`id: ${event.id}\nevent: ${event.name}\ndata: `, JSON.stringify(event), '\n\n'];
}

export function commentFrame(text: string): string {
  return `: ${text.replace(/[\r\n]+/g, ' ')}\n\n`;
}

export function retryFrame(milliseconds: number): string {
  return `retry: ${milliseconds}\n\n`;
}
