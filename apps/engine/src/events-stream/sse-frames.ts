// Server-sent-events framing (WHATWG HTML, "server-sent events"): one frame per public event,
// comments for heartbeats and progress. Data is one JSON line, so it never needs splitting.
//
// Every stream that delivers an event writes the same frame, so the JSON of an event's data is
// made once and kept, as bytes, in a cache bounded by its size (`EventFrameCache`): with many
// streams open on a tenant's history, a large event is serialised and encoded once instead of
// once per stream (issue 22: 128 held streams serialised each 8 MiB entry 128 times on the event
// loop). Sockets write the same buffer without copying it.
import { LRUCache } from 'lru-cache';
import type { PublicEvent } from './public-events';

export const SSE_CONTENT_TYPE = 'text/event-stream';
/** The reconnection delay suggested to clients. */
export const RECONNECT_DELAY_MS = 2_000;
/** Bytes of event JSON the frame cache keeps by default. */
export const DEFAULT_FRAME_CACHE_BYTES = 32 * 1024 * 1024;

/** One event's frame in three parts, so that a large event's JSON is written without a copy. */
export type EventFrame = readonly [string, Buffer, string];

/** The JSON of recently framed events, shared by every stream that delivers them. */
export class EventFrameCache {
  private readonly texts: LRUCache<string, Buffer>;
  private made = 0;

  constructor(maxBytes: number = DEFAULT_FRAME_CACHE_BYTES) {
    this.texts = new LRUCache<string, Buffer>({
      maxSize: Math.max(1, maxBytes),
      maxEntrySize: Math.max(1, maxBytes),
      sizeCalculation: (bytes) => Math.max(1, bytes.length),
    });
  }

  /** How many events' JSON was made rather than taken from the cache (for tests). */
  get serialised(): number {
    return this.made;
  }

  /**
   * The event's frame. The key is the stored event's id with the public id: positions may be
   * used again after an erasure, event ids never are.
   */
  frameOf(event: PublicEvent): EventFrame {
    const key = `${event.eventId} ${event.id}`;
    let data = this.texts.get(key);
    if (data === undefined) {
      data = Buffer.from(JSON.stringify(event), 'utf8');
      this.made += 1;
      this.texts.set(key, data);
    }
    return [`id: ${event.id}\nevent: ${event.name}\ndata: `, data, '\n\n'];
  }
}

export function commentFrame(text: string): string {
  return `: ${text.replace(/[\r\n]+/g, ' ')}\n\n`;
}

export function retryFrame(milliseconds: number): string {
  return `retry: ${milliseconds}\n\n`;
}
