// Properties of built contexts over generated session trees (fast-check), including trees
// damaged the way real sessions get damaged: tool results lost, assistant messages lost, and
// compactions whose kept region starts at a tool result.
import * as fc from 'fast-check';
import { generatedSessionArbitrary, type GeneratedSession } from '@strata/testing';
import type { SessionEntry } from '../entries/entries';
import type { AgentMessage } from '../entries/messages';
import { buildSessionTree } from '../tree/session-tree';
import { buildSessionContext, isEmptyFailedAnswer } from './build-session-context';

/** The pairing violations of a message list (empty when every call and result pair up). */
function pairingViolations(messages: readonly AgentMessage[]): string[] {
  const violations: string[] = [];
  let unanswered = new Set<string>();
  let answered = new Set<string>();
  let assistantSeen = false;
  const closeAssistant = (): void => {
    for (const callId of unanswered) violations.push(`call ${callId} has no result`);
  };
  for (const message of messages) {
    if (message.role === 'assistant') {
      closeAssistant();
      assistantSeen = true;
      unanswered = new Set(message.content.flatMap((block) => (block.type === 'toolCall' ? [block.id] : [])));
      answered = new Set();
    } else if (message.role === 'toolResult') {
      if (!assistantSeen || !unanswered.has(message.toolCallId)) {
        violations.push(
          answered.has(message.toolCallId)
            ? `result ${message.toolCallId} answers its call twice`
            : `result ${message.toolCallId} has no call in the preceding assistant message`,
        );
      }
      unanswered.delete(message.toolCallId);
      answered.add(message.toolCallId);
    }
  }
  closeAssistant();
  return violations;
}

/** Removes entries, re-attaching their children to their parent (a lost write). */
function withoutEntries(entries: readonly SessionEntry[], lost: ReadonlySet<string>): SessionEntry[] {
  const parentOf = new Map(entries.map((entry) => [entry.id, entry.parentId]));
  const survivingParent = (parentId: string | null): string | null => {
    let current = parentId;
    while (current !== null && lost.has(current)) current = parentOf.get(current) ?? null;
    return current;
  };
  return entries
    .filter((entry) => !lost.has(entry.id))
    .map((entry) => ({ ...entry, parentId: survivingParent(entry.parentId) }));
}

/** Points some compactions' kept region at a tool result (as a hook-provided compaction may). */
function withCompactionsKeptFromResults(
  entries: readonly SessionEntry[],
  choices: readonly number[],
): SessionEntry[] {
  const resultIds = entries.flatMap((entry) =>
    entry.type === 'message' && entry.message.role === 'toolResult' ? [entry.id] : [],
  );
  let choice = 0;
  return entries.map((entry) => {
    if (entry.type !== 'compaction' || resultIds.length === 0) return entry;
    const pick = choices[choice++ % Math.max(1, choices.length)] ?? 0;
    if (pick < 0.5) return entry;
    return { ...entry, firstKeptEntryId: resultIds[Math.floor(pick * resultIds.length) % resultIds.length]! };
  });
}

const positionsArbitrary = (maxLength: number) =>
  fc.array(fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }), { maxLength });

function entriesWithRole(entries: readonly SessionEntry[], role: AgentMessage['role']): SessionEntry[] {
  return entries.filter((entry) => entry.type === 'message' && entry.message.role === role);
}

function pickIds(candidates: readonly SessionEntry[], positions: readonly number[]): string[] {
  return positions.flatMap((position) => {
    const entry = candidates[Math.floor(position * candidates.length)];
    return entry ? [entry.id] : [];
  });
}

const damagedSessionArbitrary: fc.Arbitrary<GeneratedSession> = fc
  .tuple(
    generatedSessionArbitrary({ maxEntries: 80, compactions: true, unicodeText: false, images: false }),
    positionsArbitrary(4),
    positionsArbitrary(2),
    positionsArbitrary(4),
  )
  .map(([generated, lostResults, lostAssistants, compactionChoices]) => {
    const lost = new Set([
      ...pickIds(entriesWithRole(generated.entries, 'toolResult'), lostResults),
      ...pickIds(entriesWithRole(generated.entries, 'assistant'), lostAssistants),
    ]);
    const entries = withCompactionsKeptFromResults(
      withoutEntries(generated.entries, lost),
      compactionChoices,
    );
    const leafId = generated.leafId !== null && lost.has(generated.leafId) ? null : generated.leafId;
    return { ...generated, entries, leafId };
  });

describe('buildSessionContext over generated sessions', () => {
  it('never leaves an orphan tool result or an unanswered tool call, whatever the leaf', () => {
    fc.assert(
      fc.property(
        damagedSessionArbitrary,
        fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }),
        (generated, position) => {
          const tree = buildSessionTree(generated.entries);
          const leaf = generated.entries[Math.floor(position * generated.entries.length)];
          for (const leafId of [generated.leafId ?? undefined, leaf?.id]) {
            const context = buildSessionContext(tree, leafId);
            expect(pairingViolations(context.messages)).toEqual([]);
            expect(context.entryIds).toHaveLength(context.messages.length);
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('reports exactly the repairs it made: kept + dropped results = the upstream results', () => {
    fc.assert(
      fc.property(damagedSessionArbitrary, (generated) => {
        const tree = buildSessionTree(generated.entries);
        const repaired = buildSessionContext(tree, generated.leafId ?? undefined);
        const upstream = buildSessionContext(tree, generated.leafId ?? undefined, {
          repairToolCallPairing: false,
        });
        const recorded = (ids: readonly (string | null)[]) => ids.filter((id): id is string => id !== null);
        expect(recorded(repaired.entryIds).length + repaired.repairs.droppedOrphanResults.length).toBe(
          recorded(upstream.entryIds).length,
        );
        expect(repaired.entryIds.filter((id) => id === null).length).toBe(
          repaired.repairs.synthesizedResults.length + (repaired.compactionId === null ? 0 : 1),
        );
      }),
      { numRuns: 100 },
    );
  });

  it('changes nothing in an undamaged session', () => {
    fc.assert(
      fc.property(generatedSessionArbitrary({ maxEntries: 60, compactions: true }), (generated) => {
        // Pairing alone: generated sessions may hold failed answers without content.
        const omitEmptyFailedAnswers = false;
        const repaired = buildSessionContext(generated.entries, generated.leafId ?? undefined, {
          omitEmptyFailedAnswers,
        });
        const upstream = buildSessionContext(generated.entries, generated.leafId ?? undefined, {
          repairToolCallPairing: false,
          omitEmptyFailedAnswers,
        });
        expect(repaired.messages).toEqual(upstream.messages);
        expect(repaired.repairs).toEqual({
          droppedOrphanResults: [],
          synthesizedResults: [],
          missingFirstKeptEntry: null,
          omittedFailedAnswers: [],
        });
      }),
      { numRuns: 100 },
    );
  });

  it('leaves out exactly the answers that failed without content, and reports them', () => {
    fc.assert(
      fc.property(generatedSessionArbitrary({ maxEntries: 60, compactions: true }), (generated) => {
        const leaf = generated.leafId ?? undefined;
        const omitting = buildSessionContext(generated.entries, leaf, { repairToolCallPairing: false });
        const reference = buildSessionContext(generated.entries, leaf, {
          repairToolCallPairing: false,
          omitEmptyFailedAnswers: false,
        });
        const failed = reference.entryIds.filter(
          (id, index) => id !== null && isEmptyFailedAnswer(reference.messages[index] as AgentMessage),
        );
        expect(omitting.repairs.omittedFailedAnswers).toEqual(failed);
        expect(omitting.entryIds).toEqual(
          reference.entryIds.filter((id) => id === null || !failed.includes(id)),
        );
        expect(omitting.messages.filter(isEmptyFailedAnswer)).toEqual([]);
      }),
      { numRuns: 150 },
    );
  });

  it('builds equal contexts twice from the same entries, with or without the index', () => {
    fc.assert(
      fc.property(damagedSessionArbitrary, (generated) => {
        const tree = buildSessionTree(generated.entries);
        const first = buildSessionContext(tree, generated.leafId ?? undefined);
        const second = buildSessionContext(generated.entries, generated.leafId ?? undefined);
        expect(second).toEqual(first);
      }),
      { numRuns: 100 },
    );
  });
});
