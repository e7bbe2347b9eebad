// Small, literal test data shared by the decider's specs (not exported from the library):
// entries named by the caller, and the events that record them.
import type {
  BranchSummaryEntry,
  CompactionEntry,
  LabelEntry,
  SessionEntry,
  SessionHeader,
} from '../entries/entries';
import type { SessionEvent } from './session-events';

export const header: SessionHeader = {
  type: 'session',
  version: 3,
  id: '0194f3a2b7c40001',
  timestamp: '2026-02-15T09:00:00.000Z',
  cwd: '/home/dev/acme',
};

const timestamp = '2026-02-15T09:00:01.000Z';

export function user(id: string, parentId: string | null, text = 'Find the flaky test.'): SessionEntry {
  return { type: 'message', id, parentId, timestamp, message: { role: 'user', content: text, timestamp: 1 } };
}

export function assistant(id: string, parentId: string | null): SessionEntry {
  return {
    type: 'message',
    id,
    parentId,
    timestamp,
    message: {
      role: 'assistant',
      content: [{ type: 'toolCall', id: `call-${id}`, name: 'read', arguments: { path: 'a.ts' } }],
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      stopReason: 'toolUse',
      timestamp: 2,
    },
  };
}

export function toolResult(id: string, parentId: string | null, prunedAt?: number): SessionEntry {
  return {
    type: 'message',
    id,
    parentId,
    timestamp,
    message: {
      role: 'toolResult',
      toolCallId: `call-${parentId ?? 'none'}`,
      toolName: 'read',
      content: [{ type: 'text', text: 'export const a = 1;' }],
      isError: false,
      timestamp: 3,
      ...(prunedAt !== undefined ? { prunedAt } : {}),
    },
  };
}

export function label(id: string, parentId: string | null, targetId: string, text?: string): LabelEntry {
  return { type: 'label', id, parentId, timestamp, targetId, ...(text !== undefined ? { label: text } : {}) };
}

export function compaction(id: string, parentId: string | null, firstKeptEntryId: string): CompactionEntry {
  return {
    type: 'compaction',
    id,
    parentId,
    timestamp,
    summary: '## Goal\nFix the flaky test.',
    firstKeptEntryId,
    tokensBefore: 120_000,
    fromExtension: false,
  };
}

export function branchSummary(
  id: string,
  parentId: string | null,
  fromId = parentId ?? 'root',
): BranchSummaryEntry {
  return { type: 'branch_summary', id, parentId, timestamp, fromId, summary: 'Tried another approach.' };
}

export const started: SessionEvent = { type: 'SessionStarted', data: { header } };

export function appended(entry: SessionEntry): SessionEvent {
  return { type: 'EntryAppended', data: { entry } };
}

/** SessionStarted, then a chain u1 → a1 → t1 → u2 → a2 → t2 (the leaf ends at t2). */
export const chain: readonly SessionEntry[] = [
  user('u1', null),
  assistant('a1', 'u1'),
  toolResult('t1', 'a1'),
  user('u2', 't1'),
  assistant('a2', 'u2'),
  toolResult('t2', 'a2'),
];

export const startedChain: readonly SessionEvent[] = [started, ...chain.map(appended)];
