import { toJsonText, toStoredJson } from './json-values';
import { sharedUtf8Text, storedTextString } from './stored-text';
import {
  forgetEncoding,
  isSplicedJson,
  knownEncodingOf,
  rememberEncoding,
  splicedJson,
} from './known-encodings';

/** A frozen entry with its texts remembered as a worker thread writes them. */
function rememberedEntry(text: string) {
  const entry = Object.freeze({ type: 'message', id: 'e1', message: Object.freeze({ role: 'user', text }) });
  rememberEncoding(entry, {
    json: JSON.stringify(entry),
    canonicalUtf8: new TextEncoder().encode(
      '{"id":"e1","message":{"role":"user","text":"x"},"type":"message"}',
    ),
  });
  return entry;
}

describe('known encodings', () => {
  it('remembers the texts of a frozen value by its identity only, and refuses an unfrozen one', () => {
    const entry = rememberedEntry('hello "quoted" ünïcode\n');
    expect(knownEncodingOf(entry)?.json).toBe(JSON.stringify(entry));
    expect(knownEncodingOf({ ...entry })).toBeUndefined();
    expect(knownEncodingOf('text')).toBeUndefined();
    expect(() => rememberEncoding({ type: 'open' }, { json: '{}', canonicalUtf8: new Uint8Array() })).toThrow(
      TypeError,
    );
  });

  it('splices the remembered text into the JSON of the object around it, as JSON.stringify writes it', () => {
    const entry = rememberedEntry('a "large" text\u2028with\ttabs');
    const data = { entry, note: 'kept', skipped: undefined, count: 3, nothing: null };
    expect(splicedJson(data)).toBe(JSON.stringify(data));
    expect(toJsonText(data, 'data')).toBe(JSON.stringify(data));
    expect(JSON.parse(toJsonText(data, 'data'))).toEqual(JSON.parse(JSON.stringify(data)));
  });

  it('splices shared UTF-8 as parts, whose text and length are the JSON of the whole', () => {
    const entry = Object.freeze({ id: 'e2', text: 'ünïcode 漢字 🙂 "q"\n' });
    rememberEncoding(entry, { json: sharedUtf8Text(JSON.stringify(entry)), canonicalUtf8: new Uint8Array() });
    const data = { before: 'é', entry, after: [1, 2] };
    const stored = toStoredJson(data, 'data');
    expect(typeof stored).toBe('object');
    if (typeof stored === 'string') return;
    expect(stored.utf8.filter((part) => typeof part !== 'string')).toHaveLength(1);
    expect(storedTextString(stored)).toBe(JSON.stringify(data));
    expect(stored.chars).toBe(JSON.stringify(data).length);
    expect(toJsonText(data, 'data')).toBe(JSON.stringify(data));
  });

  it('counts a value remembered twice once, and a second forget changes nothing', () => {
    const entry = Object.freeze({ id: 'lone' });
    rememberEncoding(entry, { json: '{"id":"other"}', canonicalUtf8: new Uint8Array() });
    expect(splicedJson({ entry })).toBe('{"entry":{"id":"other"}}');
    forgetEncoding(entry);
    forgetEncoding(entry); // a second forget changes nothing
    const again = Object.freeze({ id: 'again' });
    rememberEncoding(again, { json: '{"id":"x"}', canonicalUtf8: new Uint8Array() });
    rememberEncoding(again, { json: '{"id":"y"}', canonicalUtf8: new Uint8Array() }); // counted once
    forgetEncoding(again);
    expect(knownEncodingOf(again)).toBeUndefined();
  });

  it('forgets the texts of a value once told, which is then written out in full', () => {
    const entry = rememberedEntry('forgotten');
    forgetEncoding(entry);
    expect(knownEncodingOf(entry)).toBeUndefined();
    expect(splicedJson({ entry })).toBeUndefined();
    expect(isSplicedJson({ entry })).toBe(false);
  });

  it('leaves every other value to JSON.stringify', () => {
    const entry = rememberedEntry('x');
    expect(splicedJson({ entry: { ...entry } })).toBeUndefined();
    expect(splicedJson([entry])).toBeUndefined();
    expect(splicedJson(new Map())).toBeUndefined();
    expect(splicedJson('text')).toBeUndefined();
    expect(toJsonText([entry], 'data')).toBe(JSON.stringify([entry]));
  });

  it('says an object is its own spliced JSON only with a remembered member and JSON primitives besides', () => {
    const entry = rememberedEntry('x');
    expect(isSplicedJson({ entry })).toBe(true);
    expect(isSplicedJson({ entry, reason: 'r', at: 2, ok: true, none: null })).toBe(true);
    expect(isSplicedJson({ entry: { ...entry } })).toBe(false);
    expect(isSplicedJson({ entry, extra: { nested: 1 } })).toBe(false);
    expect(isSplicedJson({ entry, gone: undefined })).toBe(false);
    expect(isSplicedJson({ entry, big: 1n })).toBe(false);
    expect(isSplicedJson({ entry, minusZero: -0 })).toBe(false);
    expect(isSplicedJson({ entry, infinite: Infinity })).toBe(false);
    expect(isSplicedJson([entry])).toBe(false);
    expect(isSplicedJson(entry)).toBe(false);
  });
});
