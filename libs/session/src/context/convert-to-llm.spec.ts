import type {
  AgentMessage,
  AssistantMessage,
  BashExecutionMessage,
  FileMentionMessage,
  PythonExecutionMessage,
  ToolResultMessage,
  UserMessage,
} from '../entries/messages';
import type { ImageContent } from '../entries/content';
import { session } from '@strata/testing';
import { buildSessionContext } from './build-session-context';
import type { ContextTemplates } from './context-templates';
import { bashExecutionText, convertToLlm, pythonExecutionText } from './convert-to-llm';
import { outputNotice } from './output-notice';

const templates: ContextTemplates = {
  compactionSummaryContext: 'Earlier work, condensed:\n\n<summary>\n{{summary}}\n</summary>\n',
  branchSummaryContext: 'A branch we came back from:\n\n<summary>\n{{summary}}\n</summary>\n',
};

const image: ImageContent = { type: 'image', data: 'aGVsbG8=', mimeType: 'image/png' };

const user: UserMessage = { role: 'user', content: 'hi', timestamp: 1 };
const assistant: AssistantMessage = {
  role: 'assistant',
  content: [{ type: 'toolCall', id: 'call_1', name: 'read', arguments: { path: 'a.ts' } }],
  provider: 'anthropic',
  model: 'claude-sonnet-4-5',
  stopReason: 'toolUse',
  timestamp: 2,
};
const toolResult: ToolResultMessage = {
  role: 'toolResult',
  toolCallId: 'call_1',
  toolName: 'read',
  content: [{ type: 'text', text: 'line one\n' }, image, { type: 'text', text: 'line two' }],
  isError: false,
  timestamp: 3,
};

function bash(overrides: Partial<BashExecutionMessage> = {}): BashExecutionMessage {
  return {
    role: 'bashExecution',
    command: 'npm test',
    output: 'ok',
    exitCode: 0,
    cancelled: false,
    truncated: false,
    timestamp: 4,
    ...overrides,
  };
}

function python(overrides: Partial<PythonExecutionMessage> = {}): PythonExecutionMessage {
  return {
    role: 'pythonExecution',
    code: 'print(1)',
    output: '1',
    exitCode: 0,
    cancelled: false,
    truncated: false,
    timestamp: 5,
    ...overrides,
  };
}

function onlyText(messages: readonly AgentMessage[]): string {
  const [converted] = convertToLlm(messages, templates);
  if (converted?.role !== 'user' || typeof converted.content === 'string') throw new Error('expected blocks');
  const [block] = converted.content;
  if (block?.type !== 'text') throw new Error('expected a text block');
  return block.text;
}

describe('convertToLlm', () => {
  describe('given user, assistant and unpruned tool result messages', () => {
    it('passes them through unchanged (same objects, same order)', () => {
      const converted = convertToLlm([user, assistant, toolResult], templates);
      expect(converted).toHaveLength(3);
      expect(converted[0]).toBe(user);
      expect(converted[1]).toBe(assistant);
      expect(converted[2]).toBe(toolResult);
    });

    it('does not merge consecutive user messages', () => {
      expect(convertToLlm([user, user], templates)).toEqual([user, user]);
    });
  });

  describe('given a pruned tool result', () => {
    it('keeps one text block: its text blocks joined with nothing between them, images dropped', () => {
      const [converted] = convertToLlm([{ ...toolResult, prunedAt: 10 }], templates);
      expect(converted).toMatchObject({ role: 'toolResult', toolCallId: 'call_1', prunedAt: 10 });
      expect(converted?.content).toEqual([{ type: 'text', text: 'line one\nline two' }]);
    });

    it('shows the pruning notice of a context built with pruning events', () => {
      const built = session()
        .user('read it')
        .assistantToolCalls([{ name: 'read' }])
        .toolResult('read', 'long output', { image });
      const prunedResults = new Map([['e0003', { prunedAt: 50, tokens: 1200 }]]);
      const context = buildSessionContext(built.entries, built.lastId, { prunedResults });
      const converted = convertToLlm(context.messages, templates);
      expect(converted[2]).toMatchObject({ role: 'toolResult', prunedAt: 50 });
      expect(converted[2]?.content).toEqual([{ type: 'text', text: '[Output truncated - 1200 tokens]' }]);
    });

    it('shows "[Output truncated]" when no text is left', () => {
      const [converted] = convertToLlm([{ ...toolResult, content: [image], prunedAt: 10 }], templates);
      expect(converted?.content).toEqual([{ type: 'text', text: '[Output truncated]' }]);
    });
  });

  describe('given a shell command the user ran', () => {
    it('shows the command and its output in a fenced block', () => {
      expect(bashExecutionText(bash())).toBe('Ran `npm test`\n```\nok\n```');
    });

    it('says "(no output)" for empty output and reports a non-zero exit code', () => {
      expect(bashExecutionText(bash({ output: '', exitCode: 2 }))).toBe(
        'Ran `npm test`\n(no output)\n\nCommand exited with code 2',
      );
    });

    it('reports cancellation instead of the exit code', () => {
      expect(bashExecutionText(bash({ cancelled: true, exitCode: 130 }))).toBe(
        'Ran `npm test`\n```\nok\n```\n\n(command cancelled)',
      );
    });

    it('appends the truncation notice found in meta', () => {
      const meta = { truncation: { shownRange: { start: 10, end: 20 }, totalLines: 200, outputLines: 11 } };
      expect(bashExecutionText(bash({ meta }))).toBe(
        'Ran `npm test`\n```\nok\n```\n\n[Showing lines 10-20 of 200]',
      );
    });

    it("keeps pi's notice of a truncated output saved in full (issue 13, item 11)", () => {
      const fullOutputPath = '/tmp/pi-bash-1a2b.log';
      expect(bashExecutionText(bash({ truncated: true, fullOutputPath, exitCode: 1 }))).toBe(
        `Ran \`npm test\`\n\`\`\`\nok\n\`\`\`\n\nCommand exited with code 1\n\n[Output truncated. Full output: ${fullOutputPath}]`,
      );
      expect(bashExecutionText(bash({ truncated: false, fullOutputPath }))).toBe(
        'Ran `npm test`\n```\nok\n```',
      );
    });

    it('becomes a user message with the same timestamp', () => {
      expect(convertToLlm([bash()], templates)).toEqual([
        { role: 'user', content: [{ type: 'text', text: 'Ran `npm test`\n```\nok\n```' }], timestamp: 4 },
      ]);
    });

    it('is left out when excluded from the context (the `!!` prefix)', () => {
      expect(convertToLlm([bash({ excludeFromContext: true }), user], templates)).toEqual([user]);
    });
  });

  describe('given Python code the user ran', () => {
    it('shows the code, then the output', () => {
      expect(pythonExecutionText(python())).toBe(
        'Ran Python:\n```python\nprint(1)\n```\nOutput:\n```\n1\n```',
      );
    });

    it('reports a failure code, or cancellation', () => {
      expect(pythonExecutionText(python({ output: '', exitCode: 1 }))).toBe(
        'Ran Python:\n```python\nprint(1)\n```\n(no output)\n\nExecution failed with code 1',
      );
      expect(pythonExecutionText(python({ cancelled: true }))).toMatch(/\n\n\(execution cancelled\)$/);
    });

    it('is left out when excluded from the context', () => {
      expect(convertToLlm([python({ excludeFromContext: true })], templates)).toEqual([]);
    });
  });

  describe('given an extension (custom) message', () => {
    it('wraps string content as one text block of a user message', () => {
      const custom: AgentMessage = {
        role: 'custom',
        customType: 'note',
        content: 'x',
        display: false,
        timestamp: 6,
      };
      expect(convertToLlm([custom], templates)).toEqual([
        { role: 'user', content: [{ type: 'text', text: 'x' }], timestamp: 6 },
      ]);
    });

    it('keeps block content as given, images included', () => {
      const content = [{ type: 'text' as const, text: 'look' }, image];
      const custom: AgentMessage = {
        role: 'custom',
        customType: 'note',
        content,
        display: true,
        timestamp: 6,
      };
      expect(convertToLlm([custom], templates)).toEqual([{ role: 'user', content, timestamp: 6 }]);
    });
  });

  describe('given summaries', () => {
    it('wraps a compaction summary in the compaction template, laid out and trimmed', () => {
      const text = onlyText([
        { role: 'compactionSummary', summary: 'Did X.  ', tokensBefore: 5, timestamp: 7 },
      ]);
      expect(text).toBe('Earlier work, condensed:\n\n<summary>\nDid X.\n</summary>');
    });

    it('wraps a branch summary in the branch template', () => {
      const text = onlyText([{ role: 'branchSummary', summary: 'Tried Y.', fromId: 'e1', timestamp: 8 }]);
      expect(text).toBe('A branch we came back from:\n\n<summary>\nTried Y.\n</summary>');
    });
  });

  describe('given a file mention', () => {
    it('puts every file in one system reminder, then the images', () => {
      const mention: FileMentionMessage = {
        role: 'fileMention',
        files: [
          { path: 'src/a.ts', content: 'export {};' },
          { path: 'empty.txt', content: '' },
          { path: 'shot.png', content: '', image },
        ],
        timestamp: 9,
      };
      expect(convertToLlm([mention], templates)).toEqual([
        {
          role: 'user',
          content: [
            {
              type: 'text',
              text:
                '<system-reminder>\n<file path="src/a.ts">\nexport {};\n</file>\n\n' +
                '<file path="empty.txt">\n</file>\n\n<file path="shot.png">\n</file>\n</system-reminder>',
            },
            image,
          ],
          timestamp: 9,
        },
      ]);
    });
  });
});

describe('outputNotice', () => {
  it('is empty without meta or without anything to report', () => {
    expect(outputNotice(undefined)).toBe('');
    expect(outputNotice({ unrelated: true })).toBe('');
    expect(outputNotice('not an object')).toBe('');
  });

  it('describes a line count cut by a byte limit, with where to continue', () => {
    const meta = {
      truncation: { outputLines: 50, totalLines: 900, truncatedBy: 'bytes', maxBytes: 51200, nextOffset: 51 },
    };
    expect(outputNotice(meta)).toBe('\n\n[Showing 50 of 900 lines (50.0KB limit). Use :51 to continue]');
  });

  it('joins truncation and limit notices with ". "', () => {
    const meta = {
      truncation: { outputLines: 5, totalLines: 9 },
      limits: { matchLimit: { reached: 100, suggestion: 200 }, columnTruncated: { maxColumn: 500 } },
    };
    expect(outputNotice(meta)).toBe(
      '\n\n[Showing 5 of 9 lines. 100 matches limit reached. Use limit=200 for more. Some lines truncated to 500 chars]',
    );
  });
});
