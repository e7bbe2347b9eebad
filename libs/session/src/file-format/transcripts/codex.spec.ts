import { readTranscriptSample } from '@strata/testing';
import { buildSessionContext } from '../../context/build-session-context';
import type { SessionEntry } from '../../entries/entries';
import { createCodexConverter } from './codex';
import { originalLinesOf, parseTranscriptFile } from './transcript-file';

function line(
  type: string,
  payload: Record<string, unknown>,
  timestamp = '2025-10-20T08:30:00.000Z',
): string {
  return `${JSON.stringify({ timestamp, type, payload })}\n`;
}

const meta = line('session_meta', {
  id: 'codex-1',
  timestamp: '2025-10-20T08:30:00.000Z',
  cwd: '/w',
  model_provider: 'openai',
});
const prompt = (text: string) =>
  line('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text }] });
const call = (callId: string, command: string) =>
  line('response_item', {
    type: 'function_call',
    name: 'shell',
    arguments: JSON.stringify({ command: ['bash', '-lc', command] }),
    call_id: callId,
  });
const output = (callId: string, text: string, exitCode: number) =>
  line('response_item', {
    type: 'function_call_output',
    call_id: callId,
    output: JSON.stringify({ output: text, metadata: { exit_code: exitCode } }),
  });
const turnContext = (model: string, effort?: string) =>
  line('turn_context', { cwd: '/w', model, ...(effort !== undefined ? { effort } : {}) });

function convertAll(lines: readonly string[]): SessionEntry[] {
  const converter = createCodexConverter();
  return [...converter.convert(lines), ...converter.finish()];
}

describe('Codex rollouts', () => {
  describe('given a response of reasoning and two parallel function calls', () => {
    const lines = [
      meta,
      turnContext('gpt-5-codex'),
      prompt('check it'),
      line('response_item', { type: 'reasoning', summary: [{ type: 'summary_text', text: 'Run both.' }] }),
      call('c1', 'make check'),
      call('c2', 'ls'),
      line('event_msg', {
        type: 'token_count',
        info: {
          last_token_usage: {
            input_tokens: 100,
            cached_input_tokens: 60,
            output_tokens: 9,
            total_tokens: 109,
          },
        },
      }),
      output('c1', 'FAILED', 2),
      output('c2', 'a.py', 0),
    ];

    it('makes one assistant message with the model of the turn and the usage of its token count', () => {
      const entries = convertAll(lines);
      const answer = entries.find((entry) => entry.type === 'message' && entry.message.role === 'assistant');
      expect(answer).toMatchObject({
        message: {
          provider: 'openai',
          model: 'gpt-5-codex',
          stopReason: 'toolUse',
          usage: { input: 40, cacheRead: 60, output: 9, totalTokens: 109 },
          content: [
            { type: 'thinking', thinking: 'Run both.' },
            {
              type: 'toolCall',
              id: 'c1',
              name: 'shell',
              arguments: { command: ['bash', '-lc', 'make check'] },
            },
            { type: 'toolCall', id: 'c2', name: 'shell' },
          ],
        },
      });
      expect(originalLinesOf(answer!).map((kept) => kept.line)).toEqual([4, 5, 6, 7]);
    });

    it('pairs each output with its call by call_id, a non-zero exit code being an error', () => {
      const entries = convertAll(lines);
      const context = buildSessionContext(entries, undefined);
      expect(context.repairs.synthesizedResults).toEqual([]);
      const results = context.messages.filter((message) => message.role === 'toolResult');
      expect(results.map((result) => [result.toolCallId, result.toolName, result.isError])).toEqual([
        ['c1', 'shell', true],
        ['c2', 'shell', false],
      ]);
    });

    it('gives the same entries whatever the batches the lines come in', () => {
      const whole = convertAll(lines);
      for (let cut = 0; cut <= lines.length; cut += 1) {
        const converter = createCodexConverter();
        expect([
          ...converter.convert(lines.slice(0, cut)),
          ...converter.convert(lines.slice(cut)),
          ...converter.finish(),
        ]).toEqual(whole);
      }
    });
  });

  describe('given turn contexts', () => {
    it('records a model or effort change once, and an unchanged context as a custom entry', () => {
      const entries = convertAll([
        meta,
        turnContext('gpt-5-codex', 'medium'),
        turnContext('gpt-5-codex', 'medium'),
        turnContext('gpt-5', 'high'),
      ]);
      expect(
        entries.map((entry) =>
          entry.type === 'model_change'
            ? `model ${entry.modelId}`
            : entry.type === 'thinking_level_change'
              ? `effort ${entry.thinkingLevel}`
              : entry.type === 'custom'
                ? entry.customType
                : entry.type,
        ),
      ).toEqual([
        'codex/session_meta',
        'model gpt-5-codex',
        'effort medium',
        'codex/turn_context',
        'model gpt-5',
        'effort high',
      ]);
      expect(buildSessionContext(entries, undefined).models).toMatchObject({ default: 'openai/gpt-5' });
    });
  });

  describe('given a compacted line', () => {
    it('records a compaction that keeps nothing before it', () => {
      const entries = convertAll([
        meta,
        prompt('old'),
        line('compacted', { message: 'The user said old.', replacement_history: [] }),
        prompt('new'),
      ]);
      const context = buildSessionContext(entries, undefined);
      expect(context.messages.map((message) => message.role)).toEqual(['compactionSummary', 'user']);
    });
  });

  describe('given a malformed line', () => {
    it('names an envelope without a payload', () => {
      expect(() =>
        convertAll([meta, '{"timestamp":"2025-10-20T08:30:00.000Z","type":"response_item"}\n']),
      ).toThrow(/line 2: a Codex response_item line needs a payload object/);
    });

    it('names a function call without a call id', () => {
      expect(() =>
        convertAll([meta, line('response_item', { type: 'function_call', name: 'shell', arguments: '{}' })]),
      ).toThrow(/line 2: a Codex function_call item: call_id/);
    });
  });

  describe('given the sample rollouts', () => {
    it.each(['codex-rollout.jsonl', 'codex-legacy-rollout.jsonl'] as const)(
      '%s: every line kept once, every call paired in the context',
      (name) => {
        const parsed = parseTranscriptFile(readTranscriptSample(name), 'codex');
        const kept = parsed.entries.flatMap((entry) =>
          originalLinesOf(entry).map((original) => original.line),
        );
        expect(kept.sort((left, right) => left - right)).toEqual(
          Array.from({ length: parsed.lineCount }, (_unused, index) => index + 1),
        );
        const context = buildSessionContext(parsed.entries, undefined);
        expect(context.repairs.synthesizedResults).toEqual([]);
        expect(context.repairs.droppedOrphanResults).toEqual([]);
      },
    );

    it('codex-rollout.jsonl: the session, the models, the compaction and the calls after it', () => {
      const parsed = parseTranscriptFile(readTranscriptSample('codex-rollout.jsonl'), 'codex');
      expect(parsed.header).toMatchObject({
        id: '0199a2b3-c4d5-7e6f-8a9b-0c1d2e3f4a5b',
        cwd: '/work/ledger',
        originalFormat: 'codex',
      });
      const models = parsed.entries.flatMap((entry) =>
        entry.type === 'model_change' ? [entry.modelId] : [],
      );
      expect(models).toEqual(['gpt-5-codex', 'gpt-5']);
      const context = buildSessionContext(parsed.entries, undefined);
      expect(context.messages.map((message) => message.role)).toEqual([
        'compactionSummary',
        'assistant',
        'toolResult',
        'assistant',
      ]);
    });
  });
});
