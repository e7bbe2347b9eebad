import { canonicalJson } from '@strata/integrity';
import { storedTextString } from '@strata/event-store';
import { session } from '@strata/testing';
import { SHARED_ENTRY_CHARS, readAppendBody } from './append-body.tasks';

const bytesOf = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value));

describe('an append body read on a worker thread', () => {
  it('writes the texts of each large entry in shared memory, and none for a small one', () => {
    const entries = session({ sessionId: 's' })
      .assistant('ü'.repeat(SHARED_ENTRY_CHARS))
      .user('small').entries;
    const answer = readAppendBody({ bytes: bytesOf({ entries }), counter: 'chars4' });
    if (!answer.ok) throw new Error(answer.message);
    expect(answer.body.entries).toEqual(entries);
    const [large, small] = answer.encodings;
    expect(small).toBeNull();
    expect(storedTextString(large!.json)).toBe(JSON.stringify(entries[0]));
    expect(large!.canonicalUtf8.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(new TextDecoder().decode(large!.canonicalUtf8)).toBe(canonicalJson(entries[0]));
    // chars/4 needs no counting ahead; o200k counts the long text
    expect(answer.counted).toEqual([]);
    const counted = readAppendBody({ bytes: bytesOf({ entries }), counter: 'o200k' });
    expect(counted.ok && counted.counted.length).toBe(1);
  });

  it('refuses what the event loop refuses, with its problems', () => {
    const notUtf8 = readAppendBody({ bytes: new Uint8Array([0x7b, 0xff, 0x7d]), counter: 'chars4' });
    expect(notUtf8).toEqual({ ok: false, message: 'the body is not UTF-8 text', errors: [] });
    const invalid = readAppendBody({ bytes: bytesOf({ entries: [] }), counter: 'chars4' });
    expect(invalid.ok).toBe(false);
    expect(!invalid.ok && invalid.errors.map((problem) => problem.path)).toEqual(['body.entries']);
  });
});
