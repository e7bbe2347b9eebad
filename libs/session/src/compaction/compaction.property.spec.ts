// Properties of cut points and repeated compactions over generated sessions.
import * as fc from 'fast-check';
import { generatedSessionArbitrary } from '@strata/testing';
import { buildSessionContext } from '../context/build-session-context';
import type { CompactionEntry, SessionEntry } from '../entries/entries';
import { pathToEntry } from '../tree/session-tree';
import { charsPerFourCounter } from '../tokens/token-counter';
import { findCutPoint } from './cut-point';
import { type CompactionReady, prepareCompaction } from './prepare-compaction';

const counter = charsPerFourCounter;

function isToolResult(entry: SessionEntry | undefined): boolean {
  return entry?.type === 'message' && entry.message.role === 'toolResult';
}

/** Ids of the entries whose messages make up the reference's context at the end of `path`. */
function contextIds(path: readonly SessionEntry[]): Set<string> {
  const context = buildSessionContext(path, undefined, {
    repairToolCallPairing: false,
    omitEmptyFailedAnswers: false,
  });
  return new Set(context.entryIds.filter((id): id is string => id !== null));
}

/** Tool results in the kept region whose call sits in the summarised part of the window. */
function separatedResults(path: readonly SessionEntry[], preparation: CompactionReady): string[] {
  const summarisedCalls = new Set<string>();
  for (let index = preparation.windowStartIndex; index < preparation.firstKeptEntryIndex; index += 1) {
    const entry = path[index];
    if (entry?.type !== 'message' || entry.message.role !== 'assistant') continue;
    for (const block of entry.message.content) if (block.type === 'toolCall') summarisedCalls.add(block.id);
  }
  const separated: string[] = [];
  for (let index = preparation.firstKeptEntryIndex; index < path.length; index += 1) {
    const entry = path[index];
    if (
      entry?.type === 'message' &&
      entry.message.role === 'toolResult' &&
      summarisedCalls.has(entry.message.toolCallId)
    ) {
      separated.push(entry.id);
    }
  }
  return separated;
}

describe('cut points over generated sessions', () => {
  it('never land on a tool result, and never keep a result whose call is summarised', () => {
    fc.assert(
      fc.property(
        generatedSessionArbitrary({ maxEntries: 50, compactions: true }),
        fc.integer({ min: 1, max: 400 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (generated, keepRecentTokens, startFraction) => {
          const byId = new Map(generated.entries.map((entry) => [entry.id, entry]));
          const path = generated.leafId === null ? [] : pathToEntry(byId, generated.leafId);
          const start = Math.floor(startFraction * path.length);
          const cut = findCutPoint(path, start, path.length, keepRecentTokens, counter);
          expect(isToolResult(path[cut.firstKeptEntryIndex])).toBe(false);
          if (cut.isSplitTurn) expect(cut.turnStartIndex).toBeLessThan(cut.firstKeptEntryIndex);

          const preparation = prepareCompaction(path, { keepRecentTokens }, counter);
          if (preparation.kind === 'ready') {
            expect(isToolResult(path[preparation.firstKeptEntryIndex])).toBe(false);
            expect(separatedResults(path, preparation)).toEqual([]);
          }

          // Forced (issue 13.4): the same guarantees, something summarised and something kept.
          const forced = prepareCompaction(path, { keepRecentTokens }, counter, { force: true });
          if (forced.kind === 'ready') {
            expect(isToolResult(path[forced.firstKeptEntryIndex])).toBe(false);
            expect(separatedResults(path, forced)).toEqual([]);
            expect(forced.summarizedEntryIds.length).toBeGreaterThan(0);
            expect(forced.recentMessages.length).toBeGreaterThan(0);
            if (!forced.forcedCut) expect(forced).toEqual(preparation);
          } else if (preparation.kind === 'ready') {
            throw new Error('a forced compaction skipped where an unforced one was ready');
          }
        },
      ),
    );
  });
});

describe('repeated compactions of a growing session', () => {
  it('drop no message from the context without summarising it (reference defect 1)', () => {
    fc.assert(
      fc.property(
        generatedSessionArbitrary({ maxEntries: 60, branching: false }),
        fc.integer({ min: 1, max: 300 }),
        fc.integer({ min: 1, max: 8 }),
        fc.boolean(),
        (generated, keepRecentTokens, compactEvery, calibrateKeepBudget) => {
          const path: SessionEntry[] = [];
          const everSummarised = new Set<string>();
          let compactions = 0;

          const compact = (): void => {
            const preparation = prepareCompaction(path, { keepRecentTokens }, counter, {
              calibrateKeepBudget,
            });
            if (preparation.kind === 'skip') return;
            const before = contextIds(path);
            const summarised = new Set(preparation.summarizedEntryIds);
            for (const id of summarised) expect(before.has(id)).toBe(true);
            compactions += 1;
            const previous = path[path.length - 1]!;
            const compaction: CompactionEntry = {
              type: 'compaction',
              id: `compaction-${compactions}`,
              parentId: previous.id,
              timestamp: previous.timestamp,
              summary: `Summary ${compactions}`,
              firstKeptEntryId: preparation.firstKeptEntryId,
              tokensBefore: preparation.tokensBefore,
            };
            path.push(compaction);
            const after = contextIds(path);
            for (const id of before) {
              if (!after.has(id)) expect(summarised.has(id)).toBe(true);
            }
            for (const id of summarised) everSummarised.add(id);
            expect(prepareCompaction(path, { keepRecentTokens }, counter).kind).toBe('skip');
          };

          generated.entries.forEach((entry, index) => {
            const parentId = path.length > 0 ? path[path.length - 1]!.id : null;
            path.push({ ...entry, parentId });
            if ((index + 1) % compactEvery === 0) compact();
          });
          compact();

          const finalContext = contextIds(path);
          for (const entry of path) {
            if (entry.type === 'message' || entry.type === 'custom_message') {
              expect(everSummarised.has(entry.id) || finalContext.has(entry.id)).toBe(true);
            }
          }
        },
      ),
    );
  });
});
