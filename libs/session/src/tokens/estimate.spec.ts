import type { AgentMessage } from '../entries/messages';
import { estimateMessageTokens } from './estimate';
import { charsPerFourCounter, type TokenCounter } from './token-counter';

const at = 1_700_000_000_000;

describe('estimating a message with chars/4', () => {
  it('rounds the characters of user text up to whole tokens', () => {
    expect(
      estimateMessageTokens({ role: 'user', content: 'hello', timestamp: at }, charsPerFourCounter),
    ).toBe(2);
  });

  it('counts text, thinking and tool-call names with their JSON arguments for an assistant', () => {
    const message: AgentMessage = {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'abcd' },
        { type: 'text', text: 'efgh' },
        { type: 'toolCall', id: 'c1', name: 'read', arguments: { path: 'a.ts' } },
      ],
      provider: 'anthropic',
      model: 'm',
      stopReason: 'toolUse',
      timestamp: at,
    };
    // 4 + 4 + 'read' (4) + '{"path":"a.ts"}' (15) = 27 characters
    expect(estimateMessageTokens(message, charsPerFourCounter)).toBe(7);
  });

  it('charges 4,800 characters for each image of a tool result', () => {
    const message: AgentMessage = {
      role: 'toolResult',
      toolCallId: 'c1',
      toolName: 'read',
      content: [
        { type: 'text', text: 'abcd' },
        { type: 'image', data: 'AAAA', mimeType: 'image/png' },
      ],
      isError: false,
      timestamp: at,
    };
    expect(estimateMessageTokens(message, charsPerFourCounter)).toBe(1201);
  });

  it('counts the custom role, which the reference counts as zero (defect 4)', () => {
    const message: AgentMessage = {
      role: 'custom',
      customType: 'note',
      content: '12345678',
      display: true,
      timestamp: at,
    };
    expect(estimateMessageTokens(message, charsPerFourCounter)).toBe(2);
  });

  it('counts python executions and file mentions, which the reference counts as zero (defect 4)', () => {
    const python: AgentMessage = {
      role: 'pythonExecution',
      code: 'print(1)',
      output: '1\n',
      cancelled: false,
      truncated: false,
      timestamp: at,
    };
    const mention: AgentMessage = {
      role: 'fileMention',
      files: [{ path: 'a.ts', content: 'const a = 1;' }],
      timestamp: at,
    };
    expect(estimateMessageTokens(python, charsPerFourCounter)).toBe(3);
    expect(estimateMessageTokens(mention, charsPerFourCounter)).toBe(4);
  });

  it('counts a bash execution excluded from the context as zero, since the model never sees it', () => {
    const base = {
      role: 'bashExecution',
      command: 'ls',
      output: 'a b c',
      cancelled: false,
      truncated: false,
      timestamp: at,
    } as const;
    expect(estimateMessageTokens(base, charsPerFourCounter)).toBe(2);
    expect(estimateMessageTokens({ ...base, excludeFromContext: true }, charsPerFourCounter)).toBe(0);
  });

  it('counts the summary of run-time summary messages', () => {
    expect(
      estimateMessageTokens(
        { role: 'compactionSummary', summary: 'x'.repeat(40), tokensBefore: 9, timestamp: at },
        charsPerFourCounter,
      ),
    ).toBe(10);
  });
});

describe('estimating with another counter', () => {
  it('hands the counter the text pieces and the image count', () => {
    const seen: { pieces: readonly string[]; images: number }[] = [];
    const recorder: TokenCounter = {
      name: 'recorder',
      countPieces(pieces, images) {
        seen.push({ pieces, images });
        return 42;
      },
    };
    const result = estimateMessageTokens(
      {
        role: 'user',
        content: [
          { type: 'text', text: 'hi' },
          { type: 'image', data: '', mimeType: 'image/png' },
        ],
        timestamp: at,
      },
      recorder,
    );
    expect(result).toBe(42);
    expect(seen).toEqual([{ pieces: ['hi'], images: 1 }]);
  });
});
