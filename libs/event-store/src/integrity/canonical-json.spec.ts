import fc from 'fast-check';
import { canonicalJson, sha256Hex } from './canonical-json';

function shuffledKeys(value: unknown, seed: number): unknown {
  if (Array.isArray(value)) return value.map((item, index) => shuffledKeys(item, seed + index));
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value);
    const rotated = entries.map((_, index) => entries[(index + seed) % entries.length]!);
    return Object.fromEntries(rotated.reverse().map(([key, inner]) => [key, shuffledKeys(inner, seed + 1)]));
  }
  return value;
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

  it('hashes with SHA-256 in lower-case hex', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
