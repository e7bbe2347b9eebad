import * as fc from 'fast-check';
import { isFromExtension, sessionEntrySchema, type SessionEntry } from '@strata/session';
import { generatedSessionArbitrary, isGeneratedCutPoint } from './session-arbitraries';

function pathTo(entries: readonly SessionEntry[], id: string | null): SessionEntry[] {
  const byId = new Map(entries.map((entry) => [entry.id, entry]));
  const path: SessionEntry[] = [];
  for (let current = id === null ? undefined : byId.get(id); current;) {
    path.unshift(current);
    current = current.parentId === null ? undefined : byId.get(current.parentId);
  }
  return path;
}

describe('generated sessions', () => {
  it('hold valid v3 entries with positional ids and parents that exist earlier', () => {
    fc.assert(
      fc.property(generatedSessionArbitrary({ compactions: true }), ({ entries }) => {
        const seen = new Set<string>();
        const problems = entries.flatMap((entry, index) => {
          const found: string[] = [];
          if (!sessionEntrySchema.safeParse(entry).success) found.push(`${entry.id}: schema`);
          if (entry.id !== `e${String(index + 1).padStart(4, '0')}`)
            found.push(`${entry.id}: id at ${index}`);
          if (entry.parentId !== null && !seen.has(entry.parentId)) found.push(`${entry.id}: parent`);
          seen.add(entry.id);
          return found;
        });
        expect(problems).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });

  it('with pi shapes, extension entries and kept-region cuts, still hold valid entries whose compactions keep from their path', () => {
    const options = {
      compactions: true,
      modelChangeShapes: 'both',
      extensionEntries: true,
      keptRegionCuts: true,
      stepWeights: { userTurn: 3, metadata: 5, compaction: 5 },
    } as const;
    let piModelChanges = 0;
    let extensionSummaries = 0;
    fc.assert(
      fc.property(generatedSessionArbitrary(options), ({ entries }) => {
        for (const entry of entries) {
          expect({ id: entry.id, valid: sessionEntrySchema.safeParse(entry).success }).toEqual({
            id: entry.id,
            valid: true,
          });
          if (entry.type === 'model_change' && entry.provider !== undefined) piModelChanges += 1;
          if ((entry.type === 'compaction' || entry.type === 'branch_summary') && isFromExtension(entry))
            extensionSummaries += 1;
          if (entry.type !== 'compaction') continue;
          const path = pathTo(entries, entry.id);
          expect(path.slice(0, -1).some((onPath) => onPath.id === entry.firstKeptEntryId)).toBe(true);
        }
      }),
      { numRuns: 60, seed: 7 },
    );
    expect(piModelChanges).toBeGreaterThan(0);
    expect(extensionSummaries).toBeGreaterThan(0);
  });

  it('never exceed maxEntries', () => {
    fc.assert(
      fc.property(generatedSessionArbitrary({ maxEntries: 15 }), ({ entries }) => {
        expect(entries.length).toBeLessThanOrEqual(15);
      }),
      { numRuns: 60 },
    );
  });

  it('answer every tool call of an assistant message right after it, in order', () => {
    fc.assert(
      fc.property(generatedSessionArbitrary(), ({ entries }) => {
        entries.forEach((entry, index) => {
          if (entry.type !== 'message' || entry.message.role !== 'assistant') return;
          const callIds = entry.message.content.flatMap((block) =>
            block.type === 'toolCall' ? [block.id] : [],
          );
          const results = entries.slice(index + 1, index + 1 + callIds.length);
          expect(
            results.map(
              (result) =>
                result.type === 'message' &&
                result.message.role === 'toolResult' &&
                result.message.toolCallId,
            ),
          ).toEqual(callIds);
          results.forEach((result, position) =>
            expect(result.parentId).toBe(position === 0 ? entry.id : results[position - 1]!.id),
          );
        });
      }),
      { numRuns: 60 },
    );
  });

  it('put each compaction cut on the compaction path, after the previous compaction, on a valid cut point', () => {
    fc.assert(
      fc.property(generatedSessionArbitrary({ compactions: true }), ({ entries }) => {
        for (const entry of entries) {
          if (entry.type !== 'compaction') continue;
          const path = pathTo(entries, entry.parentId);
          const previous = path.findLastIndex((candidate) => candidate.type === 'compaction');
          const cut = path.slice(previous + 1).find((candidate) => candidate.id === entry.firstKeptEntryId);
          expect(cut).toBeDefined();
          expect(isGeneratedCutPoint(cut!)).toBe(true);
        }
      }),
      { numRuns: 80 },
    );
  });

  it('cover the shapes the generator promises', () => {
    const sessions = fc.sample(generatedSessionArbitrary({ compactions: true }), { numRuns: 200, seed: 7 });
    const all = sessions.flatMap((session) => session.entries);
    const has = (predicate: (entry: SessionEntry) => boolean) => all.some(predicate);
    const isMessage = (entry: SessionEntry, role: string) =>
      entry.type === 'message' && entry.message.role === role;
    expect(has((entry) => entry.type === 'compaction')).toBe(true);
    expect(has((entry) => entry.type === 'branch_summary')).toBe(true);
    expect(has((entry) => entry.type === 'custom_message')).toBe(true);
    expect(has((entry) => entry.type === 'label')).toBe(true);
    expect(has((entry) => isMessage(entry, 'bashExecution'))).toBe(true);
    expect(has((entry) => isMessage(entry, 'custom'))).toBe(true);
    expect(
      has(
        (entry) => entry.type === 'message' && entry.message.role === 'toolResult' && entry.message.isError,
      ),
    ).toBe(true);
    expect(
      has(
        (entry) =>
          entry.type === 'message' &&
          entry.message.role === 'toolResult' &&
          entry.message.content.some((block) => block.type === 'image'),
      ),
    ).toBe(true);
    const branched = sessions.filter(
      ({ entries }) =>
        entries.filter((entry) => entry.parentId === null).length > 1 ||
        new Set(entries.map((entry) => entry.parentId)).size < entries.length,
    );
    expect(branched.length).toBeGreaterThan(10);
  });

  it('generate no compaction unless asked to', () => {
    const sessions = fc.sample(generatedSessionArbitrary(), { numRuns: 100, seed: 3 });
    expect(sessions.flatMap((session) => session.entries).some((entry) => entry.type === 'compaction')).toBe(
      false,
    );
  });
});
