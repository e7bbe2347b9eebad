import * as fc from 'fast-check';
import {
  charsPerFourCounter,
  estimateMessageTokens,
  pairToolCalls,
  SYNTHETIC_RESULT_TEXT,
  type AgentMessage,
} from '@strata/session';
import { PairingCursor, type CountedMessage } from './pairing-cursor';

const callIds = ['call_a', 'call_b', 'call_c'] as const;

function assistant(calls: readonly string[], timestamp: number): AgentMessage {
  return {
    role: 'assistant',
    content: [
      { type: 'text', text: `turn ${timestamp}` },
      ...calls.map((id) => ({ type: 'toolCall' as const, id, name: 'read', arguments: { path: id } })),
    ],
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    stopReason: calls.length > 0 ? 'toolUse' : 'stop',
    timestamp,
  };
}

function toolResult(callId: string, timestamp: number): AgentMessage {
  return {
    role: 'toolResult',
    toolCallId: callId,
    toolName: 'read',
    content: [{ type: 'text', text: `output of ${callId} at ${timestamp}` }],
    isError: false,
    timestamp,
  };
}

function user(timestamp: number): AgentMessage {
  return { role: 'user', content: `question ${timestamp}`, timestamp };
}

const callIdArbitrary = fc.constantFrom(...callIds);
const messageArbitrary: fc.Arbitrary<(timestamp: number) => AgentMessage> = fc.oneof(
  fc
    .array(callIdArbitrary, { maxLength: 3 })
    .map((calls) => (timestamp: number) => assistant(calls, timestamp)),
  callIdArbitrary.map((callId) => (timestamp: number) => toolResult(callId, timestamp)),
  fc.constant(user),
);

function counted(message: AgentMessage, sourceId: string | null): CountedMessage {
  return { message, sourceId, tokens: estimateMessageTokens(message, charsPerFourCounter) };
}

const syntheticTokens = (message: AgentMessage): number =>
  estimateMessageTokens(message, charsPerFourCounter);

describe('PairingCursor', () => {
  it('pairs every prefix of a message sequence exactly as pairToolCalls does, with a running token sum', () => {
    fc.assert(
      fc.property(fc.array(messageArbitrary, { maxLength: 25 }), fc.boolean(), (makers, withoutIds) => {
        const messages = makers.map((make, index) => make(index + 1));
        const sourceIds = messages.map((_message, index) =>
          withoutIds && index % 3 === 0 ? null : `m${index}`,
        );
        const cursor = new PairingCursor(syntheticTokens);
        messages.forEach((message, index) => {
          cursor.push(counted(message, sourceIds[index] ?? null));
          const expected = pairToolCalls(messages.slice(0, index + 1), sourceIds.slice(0, index + 1));
          const snapshot = cursor.snapshot();
          expect(snapshot.messages).toEqual(expected.messages);
          expect(snapshot.sourceIds).toEqual(expected.sourceIds);
          expect(snapshot.droppedOrphanResults).toEqual(expected.droppedOrphanResults);
          expect(snapshot.synthesizedResults).toEqual(expected.synthesizedResults);
          expect(snapshot.messageTokens).toEqual(expected.messages.map(syntheticTokens));
          expect(snapshot.tokens).toBe(snapshot.messageTokens.reduce((total, tokens) => total + tokens, 0));
        });
      }),
      { numRuns: 300 },
    );
  });

  describe('given an assistant message whose call is still unanswered, then a user message', () => {
    it('shows a synthetic result before the held message, and the real result once it arrives', () => {
      const cursor = new PairingCursor(syntheticTokens);
      cursor.push(counted(assistant(['call_a'], 1), 'a1'));
      cursor.push(counted(user(2), 'u2'));

      const open = cursor.snapshot();
      expect(open.sourceIds).toEqual(['a1', null, 'u2']);
      expect(open.messages[1]).toMatchObject({ role: 'toolResult', toolCallId: 'call_a', isError: true });
      expect(open.messages[1]).toMatchObject({ content: [{ type: 'text', text: SYNTHETIC_RESULT_TEXT }] });
      expect(open.synthesizedResults).toEqual(['call_a']);

      cursor.push(counted(toolResult('call_a', 3), 'r3'));
      const answered = cursor.snapshot();
      expect(answered.sourceIds).toEqual(['a1', 'u2', 'r3']);
      expect(answered.synthesizedResults).toEqual([]);
    });
  });

  describe('given a result that answers no open call', () => {
    it('drops it and reports its source id', () => {
      const cursor = new PairingCursor(syntheticTokens);
      cursor.push(counted(user(1), 'u1'));
      cursor.push(counted(toolResult('call_b', 2), 'r2'));

      const snapshot = cursor.snapshot();
      expect(snapshot.sourceIds).toEqual(['u1']);
      expect(snapshot.droppedOrphanResults).toEqual(['r2']);
    });
  });
});
