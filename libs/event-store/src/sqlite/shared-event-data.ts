// The parsed data of recently read events, shared by every reader of one store in this process.
// The write side's fold of a session, the subscription feeding the read models and each event
// stream read the same rows soon after each other; with this, the first reader parses an
// event's data and the others get the same frozen value, so the fold cache and the context
// projection hold one copy of each entry instead of two, and a megabyte-sized event is parsed
// once instead of once per reader. A value is given for the same event at the same position
// and stored length; a row changed in the file behind the engine's back may still be given the
// value parsed before, so verification reads without sharing (`uncached`), and sees the file.
// Bounded by the data's stored length and by count (least recently read first out: lru-cache's
// `maxSize` and `max`), and no event is kept whose data is over a quarter of the length bound; an
// erasure made through the store forgets the stream at once.
import { LRUCache } from 'lru-cache';

export interface SharedEventDataBounds {
  /** The stored JSON length of the data kept, in all. */
  readonly maxChars: number;
  readonly maxEvents: number;
}

/** 32 Mi characters of stored data, 50,000 events. */
export const DEFAULT_SHARED_EVENT_DATA: SharedEventDataBounds = { maxChars: 32 * 2 ** 20, maxEvents: 50_000 };

interface KeptData {
  readonly streamId: string;
  readonly eventId: string;
  readonly data: unknown;
  /** The length of the stored text it was parsed from. */
  readonly chars: number;
}

export class SharedEventData {
  private readonly kept: LRUCache<bigint, KeptData>;

  constructor(bounds: SharedEventDataBounds = DEFAULT_SHARED_EVENT_DATA) {
    this.kept = new LRUCache<bigint, KeptData>({
      max: bounds.maxEvents,
      maxSize: bounds.maxChars,
      maxEntrySize: Math.max(1, Math.floor(bounds.maxChars / 4)),
      // lru-cache weighs in positive integers: an empty text counts one character
      sizeCalculation: (kept) => Math.max(1, kept.chars),
    });
  }

  get size(): { readonly events: number; readonly chars: number } {
    return { events: this.kept.size, chars: this.kept.calculatedSize };
  }

  /**
   * The data of the event at `position`, stored as a text of `chars` characters, when another
   * reader parsed it, else `parse()` (kept).
   */
  dataOf(position: bigint, streamId: string, eventId: string, chars: number, parse: () => unknown): unknown {
    // peeked, so that a different event at the position does not count as a read of the one kept
    const found = this.kept.peek(position);
    if (
      found !== undefined &&
      found.eventId === eventId &&
      found.streamId === streamId &&
      found.chars === chars
    ) {
      this.kept.get(position); // read again: the most recently read go out last
      return found.data;
    }
    const data = parse();
    // one too large is not kept, and replaces what the position held
    this.kept.set(position, { streamId, eventId, data, chars });
    return data;
  }

  /**
   * Keeps the value of an event this process just wrote, as a reader would parse it from its
   * stored text of `chars` characters (the caller vouches that the value is that text's JSON,
   * deeply frozen), so that no reader parses the text again.
   */
  remember(position: bigint, streamId: string, eventId: string, chars: number, data: unknown): void {
    this.kept.set(position, { streamId, eventId, data, chars });
  }

  /** Forgets every kept event of the stream (it was erased). */
  forgetStream(streamId: string): void {
    const positions = [...this.kept.entries()].filter(([, kept]) => kept.streamId === streamId);
    for (const [position] of positions) this.kept.delete(position);
  }

  clear(): void {
    this.kept.clear();
  }
}
