import { session } from '@strata/testing';
import type { AssistantMessage } from '../entries/messages';
import type { SessionEntry } from '../entries/entries';
import { endsTurn, isLatestInConversation, restsAtTurnEnd } from './turn-boundaries';

function assistantOf(entries: readonly SessionEntry[]): AssistantMessage {
  const entry = entries.at(-1);
  if (entry?.type !== 'message' || entry.message.role !== 'assistant') throw new Error('no answer');
  return entry.message;
}

describe('turn boundaries', () => {
  describe('given an answer', () => {
    it('ends its turn when it asks for no tool', () => {
      expect(endsTurn(assistantOf(session().user('Hi').assistant('Hello').entries))).toBe(true);
    });

    it('does not end its turn when it calls a tool (the loop goes on with the result)', () => {
      const entries = session()
        .user('Run it')
        .assistantToolCalls([{ name: 'bash' }]).entries;
      expect(assistantOf(entries).stopReason).toBe('toolUse');
      expect(endsTurn(assistantOf(entries))).toBe(false);
    });

    it.each(['error', 'aborted'] as const)(
      'ends its turn when it stopped with %s, tool calls or not',
      (stop) => {
        const entries = session()
          .user('Run it')
          .assistantToolCalls([{ name: 'bash' }], { stopReason: stop }).entries;
        expect(endsTurn(assistantOf(entries))).toBe(true);
      },
    );
  });

  describe('given a path', () => {
    const builder = session()
      .user('Run it')
      .assistantToolCalls([{ name: 'bash' }]);
    const call = [...builder.entries];
    builder.toolResult('bash', 'ok');
    const answered = [...builder.entries];
    builder.assistant('Done.');
    const done = [...builder.entries];
    builder.modelChange('test/other');
    const doneThenModel = [...builder.entries];
    builder.user('Next');
    const prompted = [...builder.entries];

    it('rests at a turn end only when its newest message is an answer that ends its turn', () => {
      expect(restsAtTurnEnd(call)).toBe(false);
      expect(restsAtTurnEnd(answered)).toBe(false);
      expect(restsAtTurnEnd(done)).toBe(true);
      expect(restsAtTurnEnd(doneThenModel)).toBe(true);
      expect(restsAtTurnEnd(prompted)).toBe(false);
      expect(restsAtTurnEnd([])).toBe(false);
    });

    it('tells whether an entry is the latest of the conversation (metadata may follow)', () => {
      expect(isLatestInConversation(doneThenModel, done.length - 1)).toBe(true);
      expect(isLatestInConversation(prompted, done.length - 1)).toBe(false);
      expect(isLatestInConversation(prompted, prompted.length - 1)).toBe(true);
      expect(isLatestInConversation(prompted, prompted.length)).toBe(false);
    });
  });
});
