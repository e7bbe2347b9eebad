import { readTranscriptSample } from '@strata/testing';
import { buildSessionContext } from '../../context/build-session-context';
import type { SessionEntry } from '../../entries/entries';
import type { AssistantMessage, StoredMessage } from '../../entries/messages';
import { SessionFileError } from '../session-file-error';
import { createClaudeCodeConverter } from './claude-code';
import { originalLinesOf, parseTranscriptFile } from './transcript-file';
import { splitOriginalLines } from './transcript-lines';

const SESSION = 's-1';

function line(value: Record<string, unknown>): string {
  return `${JSON.stringify(value)}\n`;
}

function user(
  uuid: string,
  parentUuid: string | null,
  content: unknown,
  extra: Record<string, unknown> = {},
) {
  return line({
    type: 'user',
    sessionId: SESSION,
    cwd: '/repo',
    uuid,
    parentUuid,
    timestamp: '2025-11-01T10:00:00.000Z',
    message: { role: 'user', content },
    ...extra,
  });
}

function assistant(
  uuid: string,
  parentUuid: string | null,
  messageId: string,
  content: unknown[],
  extra: Record<string, unknown> = {},
) {
  return line({
    type: 'assistant',
    sessionId: SESSION,
    uuid,
    parentUuid,
    timestamp: '2025-11-01T10:00:01.000Z',
    message: { id: messageId, role: 'assistant', model: 'claude-sonnet-4-5', content, stop_reason: null },
    ...extra,
  });
}

function convertAll(lines: readonly string[]): SessionEntry[] {
  const converter = createClaudeCodeConverter();
  return [...converter.convert(lines), ...converter.finish()];
}

function messageOf(entry: SessionEntry | undefined): StoredMessage {
  if (entry?.type !== 'message') throw new Error(`not a message entry: ${JSON.stringify(entry)}`);
  return entry.message;
}

describe('Claude Code transcripts', () => {
  describe('given an answer written as one line per content block', () => {
    const lines = [
      user('u1', null, 'hello'),
      assistant('a1', 'u1', 'msg_1', [{ type: 'thinking', thinking: 'hm', signature: 'sig' }]),
      assistant('a2', 'a1', 'msg_1', [{ type: 'text', text: 'Reading.' }]),
      assistant('a3', 'a2', 'msg_1', [{ type: 'tool_use', id: 't1', name: 'Read', input: { path: 'a' } }], {
        message: {
          id: 'msg_1',
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          content: [{ type: 'tool_use', id: 't1', name: 'Read', input: { path: 'a' } }],
          stop_reason: 'tool_use',
          usage: {
            input_tokens: 3,
            output_tokens: 5,
            cache_read_input_tokens: 7,
            cache_creation_input_tokens: 11,
          },
        },
      }),
      user('r1', 'a3', [{ type: 'tool_result', tool_use_id: 't1', content: 'text of a' }]),
    ];

    it('makes one assistant message with every block, its model, usage and stop reason', () => {
      const entries = convertAll(lines);
      const answer = messageOf(entries[1]) as AssistantMessage;
      expect(answer.content).toEqual([
        { type: 'thinking', thinking: 'hm', thinkingSignature: 'sig' },
        { type: 'text', text: 'Reading.' },
        { type: 'toolCall', id: 't1', name: 'Read', arguments: { path: 'a' } },
      ]);
      expect(answer).toMatchObject({
        provider: 'anthropic',
        model: 'claude-sonnet-4-5',
        stopReason: 'toolUse',
        usage: { input: 3, output: 5, cacheRead: 7, cacheWrite: 11, totalTokens: 26 },
      });
      expect(originalLinesOf(entries[1]!).map((kept) => kept.line)).toEqual([2, 3, 4]);
    });

    it('holds the answer until a line shows it ended', () => {
      const converter = createClaudeCodeConverter();
      expect(converter.convert(lines.slice(0, 3)).map((entry) => entry.id)).toEqual(['u1']);
      expect(converter.convert(lines.slice(3, 4))).toEqual([]);
      expect(converter.convert(lines.slice(4)).map((entry) => entry.id)).toEqual(['a1', 'r1']);
      expect(converter.finish()).toEqual([]);
    });

    it('gives the same entries whatever the batches the lines come in', () => {
      const whole = convertAll(lines);
      for (let cut = 0; cut <= lines.length; cut += 1) {
        const converter = createClaudeCodeConverter();
        const parts = [
          ...converter.convert(lines.slice(0, cut)),
          ...converter.convert(lines.slice(cut)),
          ...converter.finish(),
        ];
        expect(parts).toEqual(whole);
      }
    });
  });

  describe('given parallel tool calls whose results point at different lines of the answer', () => {
    const lines = [
      user('u1', null, 'go'),
      assistant('a1', 'u1', 'msg_1', [{ type: 'tool_use', id: 't1', name: 'Glob', input: {} }]),
      assistant('a2', 'a1', 'msg_1', [{ type: 'tool_use', id: 't2', name: 'Bash', input: { command: 'x' } }]),
      user('r2', 'a2', [{ type: 'tool_result', tool_use_id: 't2', content: 'boom', is_error: true }]),
      user('r1', 'a1', [
        { type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'a.ts' }] },
      ]),
      assistant('a3', 'r1', 'msg_2', [{ type: 'text', text: 'done' }]),
    ];

    it('chains every result after the answer, so the context pairs each call with its result', () => {
      const entries = convertAll(lines);
      expect(entries.map((entry) => [entry.id, entry.parentId])).toEqual([
        ['u1', null],
        ['a1', 'u1'],
        ['r2', 'a1'],
        ['r1', 'r2'],
        ['a3', 'r1'],
      ]);
      const context = buildSessionContext(entries, 'a3');
      expect(context.repairs.synthesizedResults).toEqual([]);
      expect(context.repairs.droppedOrphanResults).toEqual([]);
      expect(context.messages.map((message) => message.role)).toEqual([
        'user',
        'assistant',
        'toolResult',
        'toolResult',
        'assistant',
      ]);
      expect(messageOf(entries[2])).toMatchObject({
        toolName: 'Bash',
        isError: true,
        content: [{ text: 'boom' }],
      });
    });
  });

  describe('given a prompt that branches off an earlier answer (a rewind)', () => {
    it('keeps the branch: the new prompt hangs from the answer, beside the first prompt', () => {
      const entries = convertAll([
        user('u1', null, 'one'),
        assistant('a1', 'u1', 'msg_1', [{ type: 'text', text: 'first answer' }]),
        user('u2', 'a1', 'two'),
        assistant('a2', 'u2', 'msg_2', [{ type: 'text', text: 'second answer' }]),
        user('u3', 'a1', 'two, said better'),
      ]);
      expect(entries.find((entry) => entry.id === 'u3')?.parentId).toBe('a1');
      expect(entries.find((entry) => entry.id === 'u2')?.parentId).toBe('a1');
    });
  });

  describe('given a sidechain (a subagent conversation) inside the file', () => {
    it('starts a tree of its own, off the main path', () => {
      const entries = convertAll([
        user('u1', null, 'delegate'),
        assistant('a1', 'u1', 'msg_1', [
          { type: 'tool_use', id: 'task', name: 'Task', input: { prompt: 'p' } },
        ]),
        user('s1', null, 'p', { isSidechain: true }),
        assistant('s2', 's1', 'msg_s', [{ type: 'text', text: 'sub answer' }], { isSidechain: true }),
        user('r1', 'a1', [{ type: 'tool_result', tool_use_id: 'task', content: 'sub answer' }]),
      ]);
      expect(entries.find((entry) => entry.id === 's1')?.parentId).toBeNull();
      const main = buildSessionContext(entries, 'r1');
      expect(main.entryIds).toEqual(['u1', 'a1', 'r1']);
      expect(buildSessionContext(entries, 's2').entryIds).toEqual(['s1', 's2']);
    });
  });

  describe('given a compact boundary and the summary after it', () => {
    it('records a compaction that keeps nothing before the boundary', () => {
      const entries = convertAll([
        user('u1', null, 'old question'),
        assistant('a1', 'u1', 'msg_1', [{ type: 'text', text: 'old answer' }]),
        line({
          type: 'system',
          subtype: 'compact_boundary',
          sessionId: SESSION,
          uuid: 'b1',
          parentUuid: null,
          logicalParentUuid: 'a1',
          timestamp: '2025-11-01T11:00:00.000Z',
          compactMetadata: { trigger: 'auto', preTokens: 150000 },
        }),
        user('c1', 'b1', 'Summary: the user asked an old question.', { isCompactSummary: true }),
        user('u2', 'c1', 'new question'),
      ]);
      const compaction = entries.find((entry) => entry.id === 'c1');
      expect(compaction).toMatchObject({
        type: 'compaction',
        parentId: 'b1',
        firstKeptEntryId: 'b1',
        tokensBefore: 150000,
        summary: 'Summary: the user asked an old question.',
      });
      expect(entries.find((entry) => entry.id === 'b1')).toMatchObject({ type: 'custom', parentId: 'a1' });
      const context = buildSessionContext(entries, 'u2');
      expect(context.messages.map((message) => message.role)).toEqual(['compactionSummary', 'user']);
    });
  });

  describe('given lines that are not messages', () => {
    it('keeps titles as session names and every other line as a custom entry on the path', () => {
      const entries = convertAll([
        user('u1', null, 'hi'),
        line({ type: 'summary', summary: 'A title', leafUuid: 'u1' }),
        line({ type: 'file-history-snapshot', messageId: 'u1', snapshot: {} }),
        '\n',
        line({ type: 'progress-of-the-future', uuid: 'p1', parentUuid: 'u1', sessionId: SESSION }),
      ]);
      expect(entries.map((entry) => [entry.type, entry.type === 'custom' ? entry.customType : ''])).toEqual([
        ['message', ''],
        ['session_info', ''],
        ['custom', 'claude-code/file-history-snapshot'],
        ['custom', 'claude-code/blank'],
        ['custom', 'claude-code/progress-of-the-future'],
      ]);
      expect(entries[1]).toMatchObject({ name: 'A title', parentId: 'u1' });
      expect(buildSessionContext(entries, entries[4]!.id).messages).toHaveLength(1);
    });

    it('marks an API error the tool wrote as a failed answer', () => {
      const [, failed] = convertAll([
        user('u1', null, 'hi'),
        assistant('a1', 'u1', 'e1', [{ type: 'text', text: 'API Error: 529 Overloaded' }], {
          isApiErrorMessage: true,
        }),
      ]);
      expect(messageOf(failed)).toMatchObject({
        stopReason: 'error',
        errorMessage: 'API Error: 529 Overloaded',
      });
    });
  });

  describe('given a malformed line', () => {
    it('names the line of bad JSON and converts nothing of its batch', () => {
      const converter = createClaudeCodeConverter();
      expect(() => converter.convert([user('u1', null, 'hi'), '{"type":"user",\n'])).toThrow(
        expect.objectContaining({ line: 2, code: 'bad-json' }) as Error,
      );
      expect(converter.linesRead).toBe(0);
    });

    it('names a tool call without an id', () => {
      expect(() =>
        convertAll([
          user('u1', null, 'hi'),
          assistant('a1', 'u1', 'm', [{ type: 'tool_use', name: 'Read', input: {} }]),
        ]),
      ).toThrow(/line 2: a Claude Code tool_use block: message\.content\.0\.id/);
    });

    it('names a line whose entry breaks the entry rules (a timestamp without a zone)', () => {
      expect(() => convertAll([user('u1', null, 'hi', { timestamp: '2025-11-01 10:00' })])).toThrow(
        SessionFileError,
      );
      expect(() => convertAll([user('u1', null, 'hi', { timestamp: '2025-11-01 10:00' })])).toThrow(/line 1/);
    });

    it('refuses a file that never names its session, unless given an id', () => {
      const lines = [line({ type: 'summary', summary: 't', leafUuid: 'x' })];
      expect(() => convertAll(lines)).toThrow(/names the claude-code session/);
      const converter = createClaudeCodeConverter({ sessionIdFallback: 'from-name' });
      converter.convert(lines);
      converter.finish();
      expect(converter.header?.id).toBe('from-name');
    });
  });

  describe('given the sample transcripts', () => {
    it.each(['claude-code-tools.jsonl', 'claude-code-compaction.jsonl'] as const)(
      '%s: every line is kept on exactly one entry and the main context pairs every tool call',
      (name) => {
        const bytes = readTranscriptSample(name);
        const parsed = parseTranscriptFile(bytes, 'claude-code');
        const kept = parsed.entries.flatMap((entry) => originalLinesOf(entry));
        expect(kept.map((original) => original.line).sort((left, right) => left - right)).toEqual(
          splitOriginalLines(bytes).map((_text, index) => index + 1),
        );
        const context = buildSessionContext(parsed.entries, undefined);
        expect(context.repairs.synthesizedResults).toEqual([]);
        expect(context.repairs.droppedOrphanResults).toEqual([]);
        const calls = context.messages.flatMap((message) =>
          message.role === 'assistant' ? message.content.filter((block) => block.type === 'toolCall') : [],
        );
        const results = context.messages.filter((message) => message.role === 'toolResult');
        expect(calls.length).toBeGreaterThan(0);
        expect(results.map((result) => result.toolCallId).sort()).toEqual(
          calls.map((call) => call.id).sort(),
        );
      },
    );

    it('claude-code-tools.jsonl: the model of each answer, the subagent apart', () => {
      const parsed = parseTranscriptFile(readTranscriptSample('claude-code-tools.jsonl'), 'claude-code');
      const models = parsed.entries.flatMap((entry) =>
        entry.type === 'message' && entry.message.role === 'assistant' ? [entry.message.model] : [],
      );
      expect(models).toEqual([
        'claude-sonnet-4-5-20250929',
        'claude-sonnet-4-5-20250929',
        'claude-opus-4-1-20250805',
        'claude-haiku-4-5-20251001',
        'claude-haiku-4-5-20251001',
        'claude-sonnet-4-5-20250929',
        'claude-sonnet-4-5-20250929',
      ]);
      const context = buildSessionContext(parsed.entries, undefined);
      expect(context.entryIds.some((id) => id?.startsWith('b0000000'))).toBe(false);
      expect(parsed.header).toMatchObject({
        id: '7d3b2f1e-5c4a-4e8b-9a61-2f0c8d9e1a01',
        cwd: '/home/dev/shop',
        originalFormat: 'claude-code',
      });
    });
  });
});
