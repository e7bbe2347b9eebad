import fc from 'fast-check';
import { createUuidV7Generator, uuidv7 } from './uuidv7';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('uuidv7', () => {
  it('puts the millisecond time first, then the version and variant bits', () => {
    const id = uuidv7(0x0190_1234_5678, new Uint8Array(10).fill(0xff));
    expect(id).toBe('01901234-5678-7fff-bfff-ffffffffffff');
  });

  it('refuses a time outside 48 bits and too few random bytes', () => {
    expect(() => uuidv7(-1, new Uint8Array(10))).toThrow(RangeError);
    expect(() => uuidv7(2 ** 48, new Uint8Array(10))).toThrow(RangeError);
    expect(() => uuidv7(1, new Uint8Array(9))).toThrow(RangeError);
  });

  it('sorts by time as text, whatever the random bytes', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 48 - 2 }),
        fc.uint8Array({ minLength: 10, maxLength: 10 }),
        fc.uint8Array({ minLength: 10, maxLength: 10 }),
        (time, firstRandom, laterRandom) => {
          const earlier = uuidv7(time, firstRandom);
          const later = uuidv7(time + 1, laterRandom);
          expect(earlier).toMatch(UUID_V7);
          expect(earlier < later).toBe(true);
        },
      ),
    );
  });
});

describe('createUuidV7Generator', () => {
  describe('given a clock that stands still or steps back', () => {
    it('still produces strictly increasing ids', () => {
      const times = [5, 5, 5, 4, 6, 6];
      let call = 0;
      let seed = 0;
      const next = createUuidV7Generator({
        now: () => times[Math.min(call++, times.length - 1)]!,
        randomBytes: (count) => new Uint8Array(count).fill((seed += 37) % 256),
      });
      const ids = Array.from({ length: times.length }, () => next());
      for (const id of ids) expect(id).toMatch(UUID_V7);
      expect([...ids].sort()).toEqual(ids);
      expect(new Set(ids).size).toBe(ids.length);
    });
  });
});

describe('createUuidV7Generator without a clock of its own (uuid v7)', () => {
  it('makes strictly increasing ids, across generators too (one counter for the process)', () => {
    const first = createUuidV7Generator();
    const second = createUuidV7Generator();
    const ids = Array.from({ length: 20_000 }, (_, index) => (index % 2 === 0 ? first : second)());
    for (const id of ids.slice(0, 10)) expect(id).toMatch(UUID_V7);
    expect(ids.every((id, index) => index === 0 || ids[index - 1]! < id)).toBe(true);
  });

  it('gives every id random bits of its own, across many refills of the random pool', () => {
    const next = createUuidV7Generator();
    // 16 bytes an id from a 4 KiB pool: 20,000 ids use about 80 pools
    const tails = Array.from({ length: 20_000 }, () => next().slice(-12));
    expect(new Set(tails).size).toBe(tails.length);
  });
});
