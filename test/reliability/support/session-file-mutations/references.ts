// Hostile session files, ids and references: parent links that make a cycle or a self-loop, two
// entries with one id, ids no per-session endpoint could address again, and compactions that
// keep from an entry off their path.
import fc from 'fast-check';
import type { FamilyMutation } from './family-mutation';
import { entryIndex, fraction, jsonText, parsedLine, replaceEntry } from './file-lines';

export const parentCycle: fc.Arbitrary<FamilyMutation> = fc
  .record({ from: fraction, to: fraction, pair: fc.boolean() })
  .map(({ from, to, pair }) => ({
    family: 'parent-cycle' as const,
    mutate: (lines) => {
      const first = entryIndex(lines, Math.min(from, to));
      const second = entryIndex(lines, Math.max(from, to));
      const early = parsedLine(lines[first]);
      const late = parsedLine(lines[second]);
      if (early === undefined || late === undefined) return;
      if (!pair || first === second) {
        lines[second] = jsonText({ ...late, parentId: late.id }) ?? lines[second] ?? '';
        return;
      }
      lines[first] = jsonText({ ...early, parentId: late.id }) ?? lines[first] ?? '';
    },
  }));

export const duplicateId: fc.Arbitrary<FamilyMutation> = fc
  .record({ source: fraction, target: fraction })
  .map(({ source, target }) => ({
    family: 'duplicate-id' as const,
    mutate: (lines) => {
      const from = parsedLine(lines[entryIndex(lines, source)]);
      if (from === undefined) return;
      const index = entryIndex(lines, target);
      const into = parsedLine(lines[index]);
      if (into === undefined) return;
      const changed = jsonText({ ...into, id: from.id });
      if (changed === undefined) return;
      lines[index] = changed;
      if (index === entryIndex(lines, source)) lines.splice(index, 0, jsonText(from) ?? '');
    },
  }));

/** Ids no per-session endpoint could address again (issue 11, finding 6). */
const unaddressableIds = [
  '',
  'a\nb',
  'a\tb',
  'a\u0000b',
  'a\rb',
  'a\u0085b',
  'a\u2028b',
  '\ud800',
  'a\udc00',
  '.',
  '..',
  'x'.repeat(513),
  'y'.repeat(100_000),
];
const idFields = ['id', 'parentId', 'targetId', 'firstKeptEntryId', 'fromId'] as const;

export const unaddressableId: fc.Arbitrary<FamilyMutation> = fc
  .record({
    id: fc.constantFrom(...unaddressableIds),
    field: fc.constantFrom(...idFields),
    header: fc.boolean(),
    where: fraction,
  })
  .map(({ id, field, header, where }) => ({
    family: 'unaddressable-id' as const,
    mutate: (lines) => {
      if (header) {
        const parsed = parsedLine(lines[0]);
        if (parsed !== undefined) lines[0] = jsonText({ ...parsed, id }) ?? lines[0] ?? '';
        return;
      }
      replaceEntry(lines, where, (entry) =>
        field in entry || field === 'id' ? { ...entry, [field]: id } : { ...entry, id },
      );
    },
  }));

/** A compaction that keeps from an entry off its path: unknown, later, or on another branch. */
export const strayFirstKept: fc.Arbitrary<FamilyMutation> = fc
  .record({ where: fraction, keep: fc.constantFrom('unknown', 'itself', 'later'), other: fraction })
  .map(({ where, keep, other }) => ({
    family: 'stray-first-kept' as const,
    mutate: (lines) => {
      const index = entryIndex(lines, where);
      const later = parsedLine(
        lines[Math.min(lines.length - 1, index + 1 + Math.floor(other * (lines.length - index)))],
      );
      replaceEntry(lines, where, (entry) => {
        const firstKeptEntryId =
          keep === 'unknown'
            ? 'no-such-entry'
            : keep === 'itself' || later === undefined
              ? entry.id
              : later.id;
        return {
          type: 'compaction',
          id: entry.id,
          parentId: entry.parentId,
          timestamp: entry.timestamp,
          summary: 'A summary that keeps from elsewhere.',
          firstKeptEntryId,
          tokensBefore: 1000,
        };
      });
    },
  }));
