// Decisions about the session's entries and leaf: starting a session, appending entries,
// navigating, labelling and recording tool-output pruning.
import { CURRENT_SESSION_VERSION, type SessionEntry } from '../entries/entries';
import { describeFieldProblem, entryFieldProblems, headerFieldProblems } from '../entries/entry-rules';
import type { AppendEntries, MoveLeaf, RecordPruning, SetLabel, StartSession } from './session-commands';
import { alreadyExists, conflict, invalid, notFound } from './session-domain-error';
import {
  MAX_CUSTOM_INSTRUCTIONS_LENGTH,
  type EntryAppendedEvent,
  type LeafMovedEvent,
  type SessionStartedEvent,
  type ToolOutputsPrunedEvent,
} from './session-events';
import type { ActiveSessionState, SessionState } from './session-state';
import { requirePairedToolResults } from './tool-result-pairing';

export function startSession(command: StartSession, state: SessionState): SessionStartedEvent[] {
  if (state.status !== 'empty') {
    throw alreadyExists(`session ${state.header.id} is already started`, { sessionId: state.header.id });
  }
  const { header } = command.data;
  const [problem] = headerFieldProblems(header);
  if (problem !== undefined) {
    throw invalid(`session header ${describeFieldProblem(problem)}`, { field: problem.path.join('.') });
  }
  if (header.version !== CURRENT_SESSION_VERSION) {
    throw invalid(`a session starts at version ${CURRENT_SESSION_VERSION}; migrate older headers first`, {
      version: header.version,
    });
  }
  return [{ type: 'SessionStarted', data: { header } }];
}

/** Refuses an entry that breaks a rule of entry-rules.ts (an id, a timestamp, a figure). */
export function requireEntryFields(entry: SessionEntry): void {
  const [problem] = entryFieldProblems(entry);
  if (problem !== undefined) {
    throw invalid(`entry ${entry.id}: ${describeFieldProblem(problem)}`, {
      entryId: entry.id,
      field: problem.path.join('.'),
    });
  }
}

/**
 * Checks a batch of entries in order: each follows the entry rules, each id is new, each parent
 * is null or already known (in the session or earlier in the batch), each label names a known
 * entry, and each compaction keeps from an entry on its own path (pi's context keeps nothing
 * before a compaction whose first kept entry is elsewhere). Compaction and branch-summary
 * entries pass as facts otherwise (an import keeps them as written); the engine records its own
 * through RecordCompaction / RecordBranchSummary, which check them further.
 */
function checkNewEntries(state: ActiveSessionState, entries: readonly SessionEntry[]): void {
  const paths = state.pathsForBatch();
  for (const entry of entries) {
    requireEntryFields(entry);
    if (paths.has(entry.id)) throw alreadyExists(`entry ${entry.id} already exists`, { entryId: entry.id });
    if (entry.parentId !== null && !paths.has(entry.parentId)) {
      throw notFound(`parent ${entry.parentId} of entry ${entry.id} not found`, {
        entryId: entry.id,
        parentId: entry.parentId,
      });
    }
    if (entry.type === 'label' && !paths.has(entry.targetId)) {
      throw notFound(`label target ${entry.targetId} not found`, {
        entryId: entry.id,
        targetId: entry.targetId,
      });
    }
    if (
      entry.type === 'compaction' &&
      (entry.parentId === null || !paths.isOnPathTo(entry.firstKeptEntryId, entry.parentId))
    ) {
      throw invalid(
        `first kept entry ${entry.firstKeptEntryId} of compaction ${entry.id} is not an entry on its path`,
        { entryId: entry.id, firstKeptEntryId: entry.firstKeptEntryId },
      );
    }
    paths.add(entry);
  }
}

export function appendEntries(command: AppendEntries, state: ActiveSessionState): EntryAppendedEvent[] {
  const { entries, expectedLeafId } = command.data;
  if (expectedLeafId !== undefined && expectedLeafId !== state.leafId) {
    throw conflict(`the leaf is ${state.leafId ?? 'null'}, not ${expectedLeafId ?? 'null'}`, {
      reason: 'leaf_conflict',
      expectedLeafId,
      currentLeafId: state.leafId,
    });
  }
  if (entries.length === 0) throw invalid('there are no entries to append');
  checkNewEntries(state, entries);
  if (command.data.pairToolResults === true) requirePairedToolResults(state, entries);
  return entries.map((entry) => ({ type: 'EntryAppended', data: { entry } }));
}

/**
 * Moves the leaf (nothing when it is there already). A navigation that asked for a branch summary
 * and gets none records why on the move, with the instructions it gave.
 */
export function moveLeaf(command: MoveLeaf, state: ActiveSessionState): LeafMovedEvent[] {
  const { leafId, summaryDeclined, customInstructions } = command.data;
  if (leafId === state.leafId) return [];
  if (leafId !== null && !state.hasEntry(leafId)) {
    throw notFound(`entry ${leafId} not found`, { entryId: leafId });
  }
  if (customInstructions !== undefined && summaryDeclined === undefined) {
    throw invalid('a leaf move records instructions only for a summary it declined');
  }
  const declined =
    summaryDeclined !== undefined ? { summaryDeclined, ...recordedInstructions(customInstructions) } : {};
  return [{ type: 'LeafMoved', data: { leafId, previousLeafId: state.leafId, ...declined } }];
}

export function setLabel(command: SetLabel, state: ActiveSessionState): EntryAppendedEvent[] {
  const { entry } = command.data;
  checkNewEntries(state, [entry]);
  return [{ type: 'EntryAppended', data: { entry } }];
}

/** The instructions as a start records them (absent when not given); refuses them over the bound. */
export function recordedInstructions(customInstructions: string | undefined): {
  customInstructions?: string;
} {
  if (customInstructions === undefined) return {};
  if (customInstructions.length > MAX_CUSTOM_INSTRUCTIONS_LENGTH) {
    throw invalid(`customInstructions must be at most ${MAX_CUSTOM_INSTRUCTIONS_LENGTH} characters`, {
      length: customInstructions.length,
    });
  }
  return { customInstructions };
}

/** A time or duration in milliseconds: finite, non-negative, and exact (at most 2^53 - 1). */
export function isTime(value: number): boolean {
  return Number.isFinite(value) && value >= 0 && value <= Number.MAX_SAFE_INTEGER;
}

/** What the event schemas read back as a count: a safe integer, not merely an integer. */
export function isCount(value: number): boolean {
  return Number.isSafeInteger(value) && value >= 0;
}

export function recordPruning(command: RecordPruning, state: ActiveSessionState): ToolOutputsPrunedEvent[] {
  const { prunedAt, results, tokensSaved, answerEntryId } = command.data;
  if (results.length === 0) throw invalid('there are no tool outputs to prune');
  if (!isTime(prunedAt) || !isCount(tokensSaved)) {
    throw invalid('prunedAt and tokensSaved must be non-negative numbers', { prunedAt, tokensSaved });
  }
  const batchIds = new Set<string>();
  for (const { entryId, tokens } of results) {
    const entry = state.getEntry(entryId);
    if (!entry) throw notFound(`entry ${entryId} not found`, { entryId });
    if (entry.type !== 'message' || entry.message.role !== 'toolResult') {
      throw invalid(`entry ${entryId} is not a tool result`, { entryId, entryType: entry.type });
    }
    if (batchIds.has(entryId)) throw invalid(`entry ${entryId} is listed twice`, { entryId });
    if (state.isPruned(entryId)) throw alreadyExists(`entry ${entryId} is already pruned`, { entryId });
    if (!isCount(tokens))
      throw invalid(`tokens of ${entryId} must be a non-negative integer`, { entryId, tokens });
    batchIds.add(entryId);
  }
  const pruned = results.map(({ entryId, tokens }) => ({ entryId, tokens }));
  if (answerEntryId !== undefined && state.getEntry(answerEntryId) === undefined) {
    throw notFound(`entry ${answerEntryId} not found`, { entryId: answerEntryId });
  }
  return [
    {
      type: 'ToolOutputsPruned',
      data: {
        prunedAt,
        results: pruned,
        tokensSaved,
        ...(answerEntryId !== undefined ? { answerEntryId } : {}),
      },
    },
  ];
}
