// The context of the two real pi sessions (reference §12) at their last entry. The upstream
// figures (446 and 914 messages) hold with repairs switched off; with repairs on, the only
// differences are the synthetic results answering tool calls that were aborted or interrupted
// before a result was recorded (reference §11.1 defect 24), and the answer that failed without
// content left out.
import { describeWithFixture, readPiFixture } from '@strata/testing';
import type { AgentMessage } from '../entries/messages';
import { parseSessionFile } from '../file-format/parse-session-file';
import { buildSessionTree } from '../tree/session-tree';
import { buildSessionContext, type SessionContext } from './build-session-context';

function countRoles(messages: readonly AgentMessage[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const message of messages) counts[message.role] = (counts[message.role] ?? 0) + 1;
  return counts;
}

function isSynthetic(message: AgentMessage): boolean {
  return (
    message.role === 'toolResult' &&
    typeof message.details === 'object' &&
    message.details !== null &&
    (message.details as { synthetic?: unknown }).synthetic === true
  );
}

function contextsOf(fileName: string): { repaired: SessionContext; upstream: SessionContext } {
  const parsed = parseSessionFile(readPiFixture(fileName), { mode: 'strict' });
  const tree = buildSessionTree(parsed.entries);
  return {
    repaired: buildSessionContext(tree, tree.lastEntryId),
    upstream: buildSessionContext(tree, tree.lastEntryId, {
      repairToolCallPairing: false,
      omitEmptyFailedAnswers: false,
    }),
  };
}

/** Synthetic results added and failed answers without content left out, nothing else. */
function expectOnlyRepairs(repaired: SessionContext, upstream: SessionContext): void {
  const omitted = new Set(repaired.repairs.omittedFailedAnswers);
  const kept = upstream.messages.filter((_message, index) => !omitted.has(upstream.entryIds[index] ?? ''));
  expect(repaired.messages.filter((message) => !isSynthetic(message))).toEqual(kept);
  expect(repaired.entryIds.filter((id) => id !== null)).toEqual(
    upstream.entryIds.filter((id): id is string => id !== null && !omitted.has(id)),
  );
  expect(repaired.messages.filter(isSynthetic)).toHaveLength(repaired.repairs.synthesizedResults.length);
  expect(repaired.repairs.droppedOrphanResults).toEqual([]);
}

describeWithFixture('before-compaction.jsonl', 'the context of before-compaction.jsonl', () => {
  const { repaired, upstream } = contextsOf('before-compaction.jsonl');

  it('has the upstream 446 messages, opened by the latest compaction summary', () => {
    expect(upstream.messages).toHaveLength(446);
    expect(countRoles(upstream.messages)).toEqual({
      compactionSummary: 1,
      user: 31,
      assistant: 219,
      toolResult: 192,
      bashExecution: 3,
    });
    expect(upstream.messages[0]).toMatchObject({ role: 'compactionSummary', tokensBefore: 185014 });
    expect(upstream.entryIds[0]).toBeNull();
  });

  it('adds a synthetic result for each of the two tool calls that never got one, and leaves out the failed answer without content', () => {
    expect(repaired.messages).toHaveLength(446 + 2 - 1);
    expect(repaired.repairs.synthesizedResults).toEqual([
      'toolu_01571BXn2nSXvrR7sxVHAXXE',
      'toolu_01F2Xbizd52r1AuErXgFpR6W',
    ]);
    const [omitted] = repaired.repairs.omittedFailedAnswers;
    expect(repaired.repairs.omittedFailedAnswers).toHaveLength(1);
    const failed = upstream.messages[upstream.entryIds.indexOf(omitted ?? null)];
    expect(failed).toMatchObject({ role: 'assistant', stopReason: 'error', content: [] });
    expectOnlyRepairs(repaired, upstream);
  });

  it('reads the state along the path', () => {
    expect(repaired.thinkingLevel).toBe('off');
    expect(repaired.models.default).toBe('anthropic/claude-opus-4-5');
  });
});

describeWithFixture('large-session.jsonl', 'the context of large-session.jsonl', () => {
  const { repaired, upstream } = contextsOf('large-session.jsonl');

  it('has the upstream 914 messages (no compaction)', () => {
    expect(upstream.messages).toHaveLength(914);
    expect(countRoles(upstream.messages)).toEqual({ user: 88, assistant: 453, toolResult: 373 });
    expect(upstream.compactionId).toBeNull();
  });

  it('answers the 18 tool calls left without a result, and changes nothing else (its failed answer has content)', () => {
    expect(repaired.repairs.synthesizedResults).toHaveLength(18);
    expect(repaired.repairs.omittedFailedAnswers).toEqual([]);
    expect(repaired.messages).toHaveLength(914 + 18);
    expectOnlyRepairs(repaired, upstream);
  });
});
