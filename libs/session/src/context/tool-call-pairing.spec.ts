// Reference §11.1 defect 24: upstream builds contexts holding orphan tool results and unanswered
// tool calls, which providers reject. Every expectation below fails on the upstream behaviour
// (reproduced here with `repairToolCallPairing: false`).
import { session } from '@strata/testing';
import type { AgentMessage } from '../entries/messages';
import { buildSessionContext } from './build-session-context';
import { SYNTHETIC_RESULT_REASON, SYNTHETIC_RESULT_TEXT } from './tool-call-pairing';

function describeMessages(messages: readonly AgentMessage[]): string[] {
  return messages.map((message) => {
    if (message.role === 'toolResult') return `result:${message.toolCallId}`;
    if (message.role === 'assistant') {
      const calls = message.content.flatMap((block) => (block.type === 'toolCall' ? [block.id] : []));
      return calls.length > 0 ? `assistant:${calls.join(',')}` : 'assistant';
    }
    return message.role;
  });
}

describe('tool call / result pairing in a built context', () => {
  describe('given a compaction whose kept region starts at a tool result (a hook-provided boundary)', () => {
    // e0001 u, e0002 a(call_0001), e0003 result, e0004 a, e0005 compaction kept from e0003, e0006 u
    function compactedAtResult() {
      return session()
        .user('read a')
        .assistantToolCalls([{ name: 'read', arguments: { path: 'a' } }])
        .toolResult('read', 'contents of a')
        .assistant('read it')
        .compaction({ firstKeptEntryId: 'e0003', tokensBefore: 5000, fromExtension: true })
        .user('next');
    }

    it('drops the orphan result and reports its entry id', () => {
      const built = compactedAtResult();
      const context = buildSessionContext(built.entries, built.lastId);
      expect(describeMessages(context.messages)).toEqual(['compactionSummary', 'assistant', 'user']);
      expect(context.entryIds).toEqual([null, 'e0004', 'e0006']);
      expect(context.repairs.droppedOrphanResults).toEqual(['e0003']);
      expect(context.repairs.synthesizedResults).toEqual([]);
    });

    it('keeps the orphan when repairs are switched off (the upstream context)', () => {
      const built = compactedAtResult();
      const context = buildSessionContext(built.entries, built.lastId, { repairToolCallPairing: false });
      expect(describeMessages(context.messages)).toEqual([
        'compactionSummary',
        'result:call_0001',
        'assistant',
        'user',
      ]);
      expect(context.repairs.droppedOrphanResults).toEqual([]);
    });
  });

  describe('given an assistant tool call whose result was never recorded', () => {
    it('inserts a synthetic error result right after the results that exist, before later messages', () => {
      const built = session()
        .user('two files')
        .assistantToolCalls([
          { name: 'read', id: 'call_a' },
          { name: 'read', id: 'call_b' },
        ])
        .toolResult('read', 'a', { toolCallId: 'call_a' })
        .user('I interrupted')
        .assistant('ok');
      const context = buildSessionContext(built.entries, built.lastId);
      expect(describeMessages(context.messages)).toEqual([
        'user',
        'assistant:call_a,call_b',
        'result:call_a',
        'result:call_b',
        'user',
        'assistant',
      ]);
      expect(context.entryIds).toEqual(['e0001', 'e0002', 'e0003', null, 'e0004', 'e0005']);
      expect(context.messages[3]).toEqual({
        role: 'toolResult',
        toolCallId: 'call_b',
        toolName: 'read',
        content: [{ type: 'text', text: SYNTHETIC_RESULT_TEXT }],
        details: { synthetic: true, reason: SYNTHETIC_RESULT_REASON },
        isError: true,
        timestamp: (context.messages[1] as AgentMessage).timestamp,
      });
      expect(context.repairs.synthesizedResults).toEqual(['call_b']);
    });

    it('places the synthetic result right after the assistant message when it has no result at all', () => {
      const built = session()
        .user('go')
        .assistantToolCalls([{ name: 'bash', id: 'call_x' }])
        .user('stop');
      const context = buildSessionContext(built.entries, built.lastId);
      expect(describeMessages(context.messages)).toEqual([
        'user',
        'assistant:call_x',
        'result:call_x',
        'user',
      ]);
    });

    it('answers the calls of a trailing assistant message too', () => {
      const built = session()
        .user('go')
        .assistantToolCalls([{ name: 'bash', id: 'call_x' }]);
      const context = buildSessionContext(built.entries, built.lastId);
      expect(describeMessages(context.messages)).toEqual(['user', 'assistant:call_x', 'result:call_x']);
      expect(context.repairs.synthesizedResults).toEqual(['call_x']);
    });

    it('leaves the call unanswered when repairs are switched off (the upstream context)', () => {
      const built = session()
        .user('go')
        .assistantToolCalls([{ name: 'bash', id: 'call_x' }])
        .user('stop');
      const context = buildSessionContext(built.entries, built.lastId, { repairToolCallPairing: false });
      expect(describeMessages(context.messages)).toEqual(['user', 'assistant:call_x', 'user']);
    });
  });

  describe('given results that do not answer the nearest assistant message', () => {
    it('drops a second result for the same call', () => {
      const built = session()
        .user('go')
        .assistantToolCalls([{ name: 'bash', id: 'call_x' }])
        .toolResult('bash', 'first', { toolCallId: 'call_x' })
        .toolResult('bash', 'again', { toolCallId: 'call_x' })
        .assistant('done');
      const context = buildSessionContext(built.entries, built.lastId);
      expect(describeMessages(context.messages)).toEqual([
        'user',
        'assistant:call_x',
        'result:call_x',
        'assistant',
      ]);
      expect(context.repairs.droppedOrphanResults).toEqual(['e0004']);
    });

    it('answers a call of an older assistant message synthetically and drops its late result', () => {
      const built = session()
        .user('go')
        .assistantToolCalls([{ name: 'bash', id: 'call_old' }])
        .assistantToolCalls([{ name: 'bash', id: 'call_new' }])
        .toolResult('bash', 'late', { toolCallId: 'call_old' })
        .toolResult('bash', 'new', { toolCallId: 'call_new' });
      const context = buildSessionContext(built.entries, built.lastId);
      expect(describeMessages(context.messages)).toEqual([
        'user',
        'assistant:call_old',
        'result:call_old',
        'assistant:call_new',
        'result:call_new',
      ]);
      expect(context.entryIds).toEqual(['e0001', 'e0002', null, 'e0003', 'e0005']);
      expect(context.repairs).toMatchObject({
        droppedOrphanResults: ['e0004'],
        synthesizedResults: ['call_old'],
      });
    });

    it('drops a result that comes before any assistant message', () => {
      const built = session().toolResult('read', 'stray', { toolCallId: 'call_z' }).user('hi');
      const context = buildSessionContext(built.entries, built.lastId);
      expect(describeMessages(context.messages)).toEqual(['user']);
      expect(context.repairs.droppedOrphanResults).toEqual(['e0001']);
    });
  });

  describe('given a well-formed session', () => {
    it('changes nothing and reports no repairs', () => {
      const built = session()
        .user('go')
        .assistantToolCalls([{ name: 'read' }, { name: 'bash' }])
        .toolResult('read', 'r')
        .bashExecution('ls', 'x')
        .toolResult('bash', 'b')
        .assistant('done');
      const repaired = buildSessionContext(built.entries, built.lastId);
      const upstream = buildSessionContext(built.entries, built.lastId, { repairToolCallPairing: false });
      expect(repaired.messages).toEqual(upstream.messages);
      expect(repaired.entryIds).toEqual(upstream.entryIds);
      expect(repaired.repairs).toEqual({
        droppedOrphanResults: [],
        synthesizedResults: [],
        missingFirstKeptEntry: null,
        omittedFailedAnswers: [],
      });
    });
  });
});
