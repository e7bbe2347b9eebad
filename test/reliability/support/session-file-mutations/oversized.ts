// Hostile session files, oversized: an entry whose payload runs from 200 kB to 2 MB (one long
// string or a long array), and values nested 100 to 30,000 levels deep, in an entry's data or
// as a bare line of their own.
import fc from 'fast-check';
import type { FamilyMutation } from './family-mutation';
import { entryIndex, fraction, insertAt, jsonText, parsedLine, replaceEntry } from './file-lines';

const HUGE_MIN = 200_000;
const HUGE_MAX = 2_000_000;

function nested(depth: number, asObject: boolean): string {
  return asObject ? '{"n":'.repeat(depth) + '0' + '}'.repeat(depth) : '['.repeat(depth) + ']'.repeat(depth);
}

export const hugePayload: fc.Arbitrary<FamilyMutation> = fc
  .noShrink(
    fc.record({ size: fc.integer({ min: HUGE_MIN, max: HUGE_MAX }), where: fraction, wide: fc.boolean() }),
  )
  .map(({ size, where, wide }) => ({
    family: 'huge-payload' as const,
    mutate: (lines) =>
      replaceEntry(lines, where, (entry) => ({
        ...entry,
        type: 'custom',
        customType: 'fuzz/huge',
        data: wide ? Array.from({ length: Math.floor(size / 16) }, (_, index) => index) : 'x'.repeat(size),
      })),
  }));

export const deepNesting: fc.Arbitrary<FamilyMutation> = fc
  .record({
    depth: fc.oneof(fc.integer({ min: 100, max: 3_000 }), fc.integer({ min: 3_000, max: 30_000 })),
    asObject: fc.boolean(),
    bare: fc.boolean(),
    where: fraction,
  })
  .map(({ depth, asObject, bare, where }) => ({
    family: 'deep-nesting' as const,
    mutate: (lines) => {
      if (bare) {
        insertAt(lines, where, nested(depth, asObject));
        return;
      }
      const index = entryIndex(lines, where);
      const entry = parsedLine(lines[index]);
      if (entry === undefined) return;
      const { data: _data, ...rest } = entry;
      const prefix = jsonText({ ...rest, type: 'custom', customType: 'fuzz/deep' })?.slice(0, -1);
      if (prefix === undefined) return;
      lines[index] = `${prefix},"data":${nested(depth, asObject)}}`;
    },
  }));
