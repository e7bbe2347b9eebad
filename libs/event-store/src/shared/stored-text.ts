// The JSON text of an event's data on its way to the store. Usually a string; for a large event
// prepared off the event loop, its UTF-8 in shared memory (a SharedArrayBuffer, written by the
// worker thread that encoded it), with short strings around it where the event loop spliced it
// into the event. Shared bytes cross to the store's writer thread without a copy, so megabytes of
// content go from the thread that prepared them to SQLite without the event loop that answers
// every tenant ever copying or walking them; it decodes them only if one of its readers needs
// the text, and most are given the value instead (known-encodings.ts, shared-event-data.ts).

/** Text as UTF-8 parts (strings are their own UTF-8), and its length as a string. */
export interface Utf8Text {
  readonly utf8: readonly (string | Uint8Array)[];
  /** The length of the text in UTF-16 code units, as `string.length` counts it. */
  readonly chars: number;
}

export type StoredText = string | Utf8Text;

/** The length of the text as a string, without decoding it. */
export function storedTextLength(text: StoredText): number {
  return typeof text === 'string' ? text.length : text.chars;
}

const utf8 = new TextDecoder();

/** The text as a string (the bytes decoded and joined). */
export function storedTextString(text: StoredText): string {
  if (typeof text === 'string') return text;
  let joined = '';
  for (const part of text.utf8) joined += typeof part === 'string' ? part : utf8.decode(part);
  return joined;
}

/** The UTF-8 of `text` in a SharedArrayBuffer of its own. */
export function sharedUtf8(text: string): Uint8Array {
  const bytes = Buffer.byteLength(text, 'utf8');
  const shared = Buffer.from(new SharedArrayBuffer(bytes));
  shared.write(text, 'utf8');
  return new Uint8Array(shared.buffer, 0, bytes);
}

/** `text` as a Utf8Text in shared memory. */
export function sharedUtf8Text(text: string): Utf8Text {
  return { utf8: [sharedUtf8(text)], chars: text.length };
}
