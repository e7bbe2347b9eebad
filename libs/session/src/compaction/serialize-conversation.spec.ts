import type { LlmMessage } from '../context/convert-to-llm';
import { charsPerFourCounter } from '../tokens/token-counter';
import { serializeConversation, serializeMessage } from './serialize-conversation';

const user = (text: string): LlmMessage => ({ role: 'user', content: text, timestamp: 0 });

const assistant: LlmMessage = {
  role: 'assistant',
  content: [
    { type: 'thinking', thinking: 'plan a' },
    { type: 'text', text: 'Looking.' },
    { type: 'thinking', thinking: 'plan b' },
    { type: 'toolCall', id: 'c1', name: 'read', arguments: { path: 'src/a.ts', offset: 3 } },
    { type: 'text', text: 'Then editing.' },
    { type: 'toolCall', id: 'c2', name: 'bash', arguments: { command: 'ls -la' } },
  ],
  provider: 'anthropic',
  model: 'claude',
  stopReason: 'toolUse',
  timestamp: 0,
};

const toolResult = (text: string): LlmMessage => ({
  role: 'toolResult',
  toolCallId: 'c1',
  toolName: 'read',
  content: [
    { type: 'text', text },
    { type: 'image', data: 'AAAA', mimeType: 'image/png' },
  ],
  isError: false,
  timestamp: 0,
});

describe('serializeMessage', () => {
  it('labels user text and joins text blocks without a separator', () => {
    expect(
      serializeMessage({
        role: 'user',
        content: [
          { type: 'text', text: 'one' },
          { type: 'image', data: 'AAAA', mimeType: 'image/png' },
          { type: 'text', text: 'two' },
        ],
        timestamp: 0,
      }),
    ).toEqual(['[User]: onetwo']);
  });

  it('skips a user message without text', () => {
    expect(serializeMessage(user(''))).toEqual([]);
  });

  it('renders thinking, text and tool calls of an assistant message in that order', () => {
    expect(serializeMessage(assistant)).toEqual([
      '[Assistant thinking]: plan a\nplan b',
      '[Assistant]: Looking.\nThen editing.',
      '[Assistant tool calls]: read(path="src/a.ts", offset=3); bash(command="ls -la")',
    ]);
  });

  it('keeps a tool result of 2,000 characters whole', () => {
    expect(serializeMessage(toolResult('a'.repeat(2000)))).toEqual([`[Tool result]: ${'a'.repeat(2000)}`]);
  });

  it('cuts a longer tool result to 2,000 characters and says how much was left out', () => {
    expect(serializeMessage(toolResult('a'.repeat(2500)))).toEqual([
      `[Tool result]: ${'a'.repeat(2000)}\n\n[... 500 more characters truncated]`,
    ]);
  });
});

describe('serializeConversation', () => {
  const messages = [user('first'), assistant, toolResult('output')];

  it('separates blocks with a blank line', () => {
    expect(serializeConversation(messages)).toBe(
      [
        '[User]: first',
        '[Assistant thinking]: plan a\nplan b',
        '[Assistant]: Looking.\nThen editing.',
        '[Assistant tool calls]: read(path="src/a.ts", offset=3); bash(command="ls -la")',
        '[Tool result]: output',
      ].join('\n\n'),
    );
  });

  it('returns the whole transcript when it fits the budget', () => {
    const whole = serializeConversation(messages);
    expect(
      serializeConversation(messages, {
        maxTokens: charsPerFourCounter.countPieces([whole], 0),
        counter: charsPerFourCounter,
      }),
    ).toBe(whole);
  });

  describe('given a transcript over its token budget (reference defect 16)', () => {
    const long = Array.from({ length: 10 }, (_unused, index) => user(`${index}:${'y'.repeat(396)}`));
    const transcript = serializeConversation(long, { maxTokens: 350, counter: charsPerFourCounter });

    it('leaves out the oldest messages behind a visible marker', () => {
      expect(transcript.startsWith('[7 earlier messages omitted]\n\n[User]: 7:')).toBe(true);
      expect(transcript.endsWith(`[User]: 9:${'y'.repeat(396)}`)).toBe(true);
    });

    it('stays within the budget', () => {
      expect(charsPerFourCounter.countPieces([transcript], 0)).toBeLessThanOrEqual(350);
    });
  });

  describe('given a newest message larger than the whole budget', () => {
    const transcript = serializeConversation([user('old'), user('z'.repeat(4000))], {
      maxTokens: 100,
      counter: charsPerFourCounter,
    });

    it('keeps the head of that message, cut, after the marker', () => {
      expect(transcript).toMatch(
        /^\[1 earlier messages omitted\]\n\n\[User\]: z+\n\n\[\.\.\. \d+ more characters truncated\]$/,
      );
      expect(charsPerFourCounter.countPieces([transcript], 0)).toBeLessThanOrEqual(100);
    });
  });

  it('leaves only the marker when the budget holds no message text at all', () => {
    expect(
      serializeConversation([user('old'), user('z'.repeat(400))], {
        maxTokens: 0,
        counter: charsPerFourCounter,
      }),
    ).toBe('[2 earlier messages omitted]');
  });

  it('refuses a budget without a counter', () => {
    expect(() => serializeConversation([user('a'.repeat(100))], { maxTokens: 1 })).toThrow(/counter/);
  });
});
