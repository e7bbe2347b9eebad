import fc from 'fast-check';
import { rememberEncoding } from '@strata/event-store';
import { canonicalJson, canonicalJsonParts, sha256Hex } from './canonical-json';

function shuffledKeys(value: unknown, seed: number): unknown {
  if (Array.isArray(value)) return value.map((item, index) => shuffledKeys(item, seed + index));
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value);
    const rotated = entries.map((_, index) => entries[(index + seed) % entries.length]!);
    return Object.fromEntries(rotated.reverse().map(([key, inner]) => [key, shuffledKeys(inner, seed + 1)]));
  }
  return value;
}

/** The definition the single-pass writer must agree with: JSON's own form, re-written sorted. */
function referenceCanonical(value: unknown): string {
  const text = JSON.stringify(value);
  if (text === undefined) throw new TypeError('no JSON form');
  const write = (inner: unknown): string => {
    if (Array.isArray(inner)) return `[${inner.map(write).join(',')}]`;
    if (typeof inner === 'object' && inner !== null) {
      const record = inner as Record<string, unknown>;
      return `{${Object.keys(record)
        .sort()
        .map((key) => `${JSON.stringify(key)}:${write(record[key])}`)
        .join(',')}}`;
    }
    return JSON.stringify(inner);
  };
  return write(JSON.parse(text) as unknown);
}

describe('canonicalJson', () => {
  it('sorts keys at every depth and leaves arrays in order, without whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: true, y: null }], c: 'x' } })).toBe(
      '{"a":{"c":"x","d":[3,{"y":null,"z":true}]},"b":1}',
    );
  });

  it('drops undefined members and applies toJSON, as stored JSON would', () => {
    expect(canonicalJson({ kept: 1, dropped: undefined, at: new Date(0) })).toBe(
      '{"at":"1970-01-01T00:00:00.000Z","kept":1}',
    );
  });

  it('refuses bigints', () => {
    expect(() => canonicalJson({ amount: 1n })).toThrow(TypeError);
  });

  it('gives the same text whatever the key order, and parses back to the JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat(20), (value, seed) => {
        const canonical = canonicalJson(value);
        expect(canonicalJson(shuffledKeys(value, seed))).toBe(canonical);
        expect(JSON.parse(canonical)).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });

  it('writes what JSON would carry, re-sorted, for any value JSON can hold (and the odd ones)', () => {
    const odd = fc.oneof(
      fc.constant(undefined),
      fc.constant(Number.NaN),
      fc.constant(Number.POSITIVE_INFINITY),
      fc.constant(-0),
      fc.date({ noInvalidDate: true }),
      fc.string().map((text) => new String(text)),
      fc.constant(() => 1),
      fc.string({ unit: 'binary' }),
    );
    const value = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, fc.jsonValue(), odd, tie('array'), tie('object')),
      array: fc.array(tie('node'), { maxLength: 5 }),
      object: fc.dictionary(fc.string(), tie('node'), { maxKeys: 5 }),
    })).node;
    fc.assert(
      fc.property(fc.oneof(value.filter((inner) => JSON.stringify(inner) !== undefined)), (inner) => {
        expect(canonicalJson(inner)).toBe(referenceCanonical(inner));
      }),
      { numRuns: 500 },
    );
  });

  it('writes array holes and members without a JSON form as null, and refuses circular values', () => {
    // eslint-disable-next-line no-sparse-arrays
    expect(canonicalJson([1, , undefined, () => 2])).toBe('[1,null,null,null]');
    const circular: Record<string, unknown> = { a: 1 };
    circular['self'] = circular;
    expect(() => canonicalJson(circular)).toThrow(TypeError);
    expect(() => canonicalJson(undefined)).toThrow(TypeError);
  });

  it('hashes with SHA-256 in lower-case hex', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

describe('canonicalJsonParts', () => {
  const utf8 = new TextEncoder();
  const bytesOf = (parts: readonly (string | Uint8Array)[]): string =>
    Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : part))).toString();

  it('is the canonical text in one part when no value has known bytes', () => {
    const value = { b: [1, 'two', { z: null, a: true }], a: 'x\u0000y' };
    expect(canonicalJsonParts(value)).toEqual([canonicalJson(value)]);
  });

  it('takes the known bytes of a remembered value in its place, unwalked, wherever it is', () => {
    const entry = Object.freeze({ text: 'ünïcode "quoted" \u0000 nul', id: 'e' });
    rememberEncoding(entry, {
      json: JSON.stringify(entry),
      canonicalUtf8: utf8.encode(canonicalJson(entry)),
    });
    const value = { type: 'EntryAppended', data: { entry, also: [entry] }, id: '\u0000 0 \u0000' };
    const parts = canonicalJsonParts(value);
    expect(parts.filter((part) => typeof part !== 'string')).toHaveLength(2);
    expect(bytesOf(parts)).toBe(canonicalJson(value));
  });

  it('uses the remembered bytes as they are (so whoever remembers them must give the right ones)', () => {
    const entry = Object.freeze({ text: 'real' });
    rememberEncoding(entry, { json: '{"text":"real"}', canonicalUtf8: utf8.encode('{"text":"other"}') });
    expect(bytesOf(canonicalJsonParts({ entry }))).toBe('{"entry":{"text":"other"}}');
    expect(canonicalJson({ entry })).toBe('{"entry":{"text":"real"}}');
  });
});
