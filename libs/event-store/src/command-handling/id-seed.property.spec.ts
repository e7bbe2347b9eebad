import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { derivedEventId } from './derived-event-id';
import { idSeedOf, sessionIdSeed, type IdSeedPart } from './id-seed';

/** Reads the parts back out of a seed: it exists, so no two part lists can share a seed. */
function partsOf(seed: string): IdSeedPart[] {
  if (!seed.startsWith('\u0000')) throw new Error('not a seed');
  return JSON.parse(seed.slice(1)) as IdSeedPart[];
}

/** Text built to confuse a naive join: separators, quotes, escapes, NUL, lone surrogates, digits. */
const hostileText = fc.oneof(
  fc.string({
    unit: fc.constantFrom('/', ':', '"', '\\', '\u0000', ',', '[', ']', 'a', '1', '\ud800', '\n'),
  }),
  fc.string({ unit: 'binary' }),
  fc.string(),
);
const part: fc.Arbitrary<IdSeedPart> = fc.oneof(
  { weight: 9, arbitrary: hostileText },
  { weight: 1, arbitrary: fc.constant(null) },
);
const partList = fc.array(part, { maxLength: 6 });

const RUNS = 2_000;

describe('idSeedOf', () => {
  it('gives back the very parts it was built from', () => {
    fc.assert(
      fc.property(partList, (parts) => {
        expect(partsOf(idSeedOf(parts))).toEqual(parts);
      }),
      { numRuns: RUNS },
    );
  });

  it('never gives two different part lists the same seed', () => {
    fc.assert(
      fc.property(partList, partList, (left, right) => {
        fc.pre(!isDeepStrictEqual(left, right));
        expect(idSeedOf(left)).not.toBe(idSeedOf(right));
      }),
      { numRuns: RUNS },
    );
  });

  it('changes when a part is split in two, wherever the cut falls', () => {
    fc.assert(
      fc.property(fc.array(part, { minLength: 1, maxLength: 5 }), fc.nat(), fc.nat(), (parts, at, cut) => {
        const index = at % parts.length;
        const text = parts[index] ?? '';
        const position = cut % (text.length + 1);
        const split = [
          ...parts.slice(0, index),
          text.slice(0, position),
          text.slice(position),
          ...parts.slice(index + 1),
        ];
        expect(idSeedOf(split)).not.toBe(idSeedOf(parts));
      }),
      { numRuns: RUNS },
    );
  });

  it('keeps apart the lists that a "/" join of session id and key made equal', () => {
    fc.assert(
      fc.property(hostileText, hostileText, hostileText, (session, middle, key) => {
        const formerSeed = (sessionId: string, idempotencyKey: string) =>
          `${sessionId}/append/${idempotencyKey}`;
        expect(formerSeed(session, `${middle}/append/${key}`)).toBe(
          formerSeed(`${session}/append/${middle}`, key),
        );
        const left = sessionIdSeed(session, 'append', `${middle}/append/${key}`);
        const right = sessionIdSeed(`${session}/append/${middle}`, 'append', key);
        expect(left).not.toBe(right);
        expect(derivedEventId(left, 0)).not.toBe(derivedEventId(right, 0));
      }),
      { numRuns: RUNS },
    );
  });

  it('tells a missing part from the text "null" and from an empty text', () => {
    const seeds = new Set([idSeedOf([null]), idSeedOf(['null']), idSeedOf(['']), idSeedOf([])]);
    expect(seeds.size).toBe(4);
  });
});

describe('sessionIdSeed', () => {
  it('differs for every session, purpose and part', () => {
    fc.assert(
      fc.property(
        fc.tuple(hostileText, fc.constantFrom('append', 'label', 'compaction-start' as const), partList),
        fc.tuple(hostileText, fc.constantFrom('append', 'label', 'compaction-start' as const), partList),
        ([leftSession, leftPurpose, leftParts], [rightSession, rightPurpose, rightParts]) => {
          const same =
            leftSession === rightSession &&
            leftPurpose === rightPurpose &&
            JSON.stringify(leftParts) === JSON.stringify(rightParts);
          fc.pre(!same);
          expect(sessionIdSeed(leftSession, leftPurpose, ...leftParts)).not.toBe(
            sessionIdSeed(rightSession, rightPurpose, ...rightParts),
          );
        },
      ),
      { numRuns: RUNS },
    );
  });
});
