// release(): what a quiet followed transcript may store before its next line. Whatever it
// releases, and whenever it is called, the entries must be those of the whole file converted at
// once: the same ids, content and order, so that an import of the finished file agrees.
import { readTranscriptSample, transcriptSampleNames } from '@strata/testing';
import type { SessionEntry } from '../../entries/entries';
import { createClaudeCodeConverter } from './claude-code';
import { createCodexConverter } from './codex';
import type { TranscriptConverter } from './transcript-converter';
import { splitOriginalLines } from './transcript-lines';

type Make = () => TranscriptConverter;

function converterOf(name: string): Make {
  return name.startsWith('codex') ? createCodexConverter : createClaudeCodeConverter;
}

function whole(make: Make, lines: readonly string[]): SessionEntry[] {
  const converter = make();
  return [...converter.convert(lines), ...converter.finish()];
}

/** Converts one line at a time, releasing after each, then finishes; says what each release gave. */
function releasingAfterEachLine(
  make: Make,
  lines: readonly string[],
): { entries: SessionEntry[]; released: number[] } {
  const converter = make();
  const entries: SessionEntry[] = [];
  const released: number[] = [];
  for (const line of lines) {
    entries.push(...converter.convert([line]));
    const now = converter.release();
    released.push(now.length);
    entries.push(...now);
  }
  entries.push(...converter.finish());
  return { entries, released };
}

const SESSION = 'cc-1';

function claude(value: Record<string, unknown>): string {
  return `${JSON.stringify({ sessionId: SESSION, cwd: '/repo', timestamp: '2025-11-01T10:00:00.000Z', ...value })}\n`;
}

function answerLine(uuid: string, parentUuid: string, messageId: string, block: object, stop: string | null) {
  return claude({
    type: 'assistant',
    uuid,
    parentUuid,
    message: {
      id: messageId,
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [block],
      stop_reason: stop,
    },
  });
}

const prompt = claude({
  type: 'user',
  uuid: 'u1',
  parentUuid: null,
  message: { role: 'user', content: 'hi' },
});
const thinking = answerLine('a1', 'u1', 'msg_A', { type: 'thinking', thinking: 'hm', signature: 's' }, null);
const text = answerLine('a2', 'a1', 'msg_A', { type: 'text', text: 'Hello.' }, 'end_turn');
const hook = claude({ type: 'system', subtype: 'stop_hook_summary', uuid: 's1', parentUuid: 'a2' });

function codex(type: string, payload: Record<string, unknown>): string {
  return `${JSON.stringify({ timestamp: '2025-10-20T08:30:00.000Z', type, payload })}\n`;
}

const codexTurn = [
  codex('session_meta', { id: 'cx-1', timestamp: '2025-10-20T08:30:00.000Z', cwd: '/w' }),
  codex('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] }),
  codex('response_item', { type: 'reasoning', summary: [{ type: 'summary_text', text: 'greet' }] }),
  codex('response_item', {
    type: 'message',
    role: 'assistant',
    content: [{ type: 'output_text', text: 'Hello.' }],
  }),
  codex('event_msg', { type: 'agent_message', message: 'Hello.' }),
];
const turnEnd = codex('event_msg', { type: 'task_complete', last_agent_message: 'Hello.' });

describe('release() of a followed transcript', () => {
  it.each(transcriptSampleNames)(
    'gives %s the entries of its whole conversion, released after any line',
    (name) => {
      const lines = splitOriginalLines(readTranscriptSample(name).toString('utf8'));
      const make = converterOf(name);
      expect(releasingAfterEachLine(make, lines).entries).toEqual(whole(make, lines));
    },
  );

  describe('a Claude Code answer', () => {
    it('is held while its last line has no stop reason: another block of its message may follow', () => {
      const { released } = releasingAfterEachLine(createClaudeCodeConverter, [prompt, thinking]);
      expect(released).toEqual([0, 0]);
    });

    it('is released with the lines held behind it once a line bears its stop reason', () => {
      const converter = createClaudeCodeConverter();
      expect(converter.convert([prompt, thinking, text, hook]).map((entry) => entry.id)).toEqual(['u1']);
      expect(converter.release().map((entry) => entry.id)).toEqual(['a1', 's1']);
      expect(converter.release()).toEqual([]);
    });

    it('without a stop reason, is released once a notice says the turn is over', () => {
      const untold = answerLine('a2', 'a1', 'msg_A', { type: 'text', text: 'Hello.' }, null);
      const converter = createClaudeCodeConverter();
      converter.convert([prompt, thinking, untold]);
      expect(converter.release()).toEqual([]);
      converter.convert([hook]);
      expect(converter.release().map((entry) => entry.id)).toEqual(['a1', 's1']);
    });

    it('after its stop reason, a line of the same message starts another message, released or not', () => {
      const late = answerLine('a3', 'a2', 'msg_A', { type: 'text', text: 'And more.' }, 'end_turn');
      const next = claude({
        type: 'user',
        uuid: 'u2',
        parentUuid: 'a3',
        message: { role: 'user', content: 'ok' },
      });
      const lines = [prompt, thinking, text, hook, late, next];
      const all = whole(createClaudeCodeConverter, lines);
      expect(all.map((entry) => entry.id)).toEqual(['u1', 'a1', 's1', 'a3', 'u2']);
      expect(releasingAfterEachLine(createClaudeCodeConverter, lines).entries).toEqual(all);
    });
  });

  describe('a Codex response', () => {
    it('is held until the turn ends: its token count could still join it', () => {
      const { released } = releasingAfterEachLine(createCodexConverter, codexTurn);
      expect(released.every((count) => count === 0)).toBe(true);
    });

    it('is released once the turn ended, after the turn-end line', () => {
      const converter = createCodexConverter();
      const before = converter.convert([...codexTurn, turnEnd]);
      expect(before.map((entry) => entry.id)).toEqual(['line-1', 'line-2', 'line-5', 'line-6']);
      const released = converter.release();
      expect(released.map((entry) => entry.id)).toEqual(['line-3']);
      expect(released[0]).toMatchObject({
        type: 'message',
        parentId: 'line-6',
        message: { role: 'assistant' },
      });
    });

    it('ended, it takes no later token count, released or not', () => {
      const count = codex('event_msg', {
        type: 'token_count',
        info: { last_token_usage: { input_tokens: 9 } },
      });
      const next = codex('response_item', {
        type: 'message',
        role: 'user',
        content: [{ type: 'input_text', text: 'ok' }],
      });
      const lines = [...codexTurn, turnEnd, count, next];
      const all = whole(createCodexConverter, lines);
      expect(all.map((entry) => entry.id)).toEqual([
        'line-1',
        'line-2',
        'line-5',
        'line-6',
        'line-3',
        'line-7',
        'line-8',
      ]);
      expect(releasingAfterEachLine(createCodexConverter, lines).entries).toEqual(all);
    });
  });
});
