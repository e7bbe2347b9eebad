// The parsed data of recently read events, shared by every reader of one store in this process.
// The write side's fold of a session, the subscription feeding the read models and each event
// stream read the same rows soon after each other; with this, the first reader parses an
// event's data and the others get the same frozen value, so the fold cache and the context
// projection hold one copy of each entry instead of two, and a megabyte-sized event is parsed
// once instead of once per reader. A value is given for the same event at the same position
// and stored length; a row changed in the file behind the engine's back may still be given the
// value parsed before, so verification reads without sharing (`uncached`), and sees the file.
// Bounded by the data's stored length and by count (least recently read first out); an erasure
// made through the store forgets the stream at once.

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
  private readonly kept = new Map<bigint, KeptData>();
  private chars = 0;

  constructor(private readonly bounds: SharedEventDataBounds = DEFAULT_SHARED_EVENT_DATA) {}

  get size(): { readonly events: number; readonly chars: number } {
    return { events: this.kept.size, chars: this.chars };
  }

  /** The data of the event at `position` when another reader parsed it, else `parse()` (kept). */
  dataOf(position: bigint, streamId: string, eventId: string, text: string, parse: () => unknown): unknown {
    const found = this.kept.get(position);
    if (
      found !== undefined &&
      found.eventId === eventId &&
      found.streamId === streamId &&
      found.chars === text.length
    ) {
      // read again: the most recently read go out last
      this.kept.delete(position);
      this.kept.set(position, found);
      return found.data;
    }
    const data = parse();
    if (found !== undefined) this.drop(position, found);
    if (text.length <= this.bounds.maxChars / 4) {
      this.kept.set(position, { streamId, eventId, data, chars: text.length });
      this.chars += text.length;
      this.evict();
    }
    return data;
  }

  /** Forgets every kept event of the stream (it was erased). */
  forgetStream(streamId: string): void {
    for (const [position, kept] of this.kept) if (kept.streamId === streamId) this.drop(position, kept);
  }

  clear(): void {
    this.kept.clear();
    this.chars = 0;
  }

  private evict(): void {
    for (const [position, kept] of this.kept) {
      if (this.chars <= this.bounds.maxChars && this.kept.size <= this.bounds.maxEvents) return;
      this.drop(position, kept);
    }
  }

  private drop(position: bigint, kept: KeptData): void {
    this.kept.delete(position);
    this.chars -= kept.chars;
  }
}
