import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readTranscriptSample, transcriptSamplePath, transcriptSampleNames } from '@strata/testing';
import { runCli } from '../run-cli';
import { recordingIo, type RecordingIo } from '../testing-io';
import { commands } from '.';

let directory: string;
let store: string;
beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'strata-transcripts-cli-'));
  store = `sqlite:${join(directory, 'strata.db')}`;
});
afterEach(() => rmSync(directory, { recursive: true, force: true }));

async function strata(args: string[]): Promise<RecordingIo & { code: number }> {
  const io = recordingIo({}, directory);
  const code = await runCli(args, io, commands);
  return Object.assign(io, { code });
}

interface PrintedMessage {
  readonly role: string;
  readonly toolCallId?: string;
  readonly content?: readonly { readonly type: string; readonly id?: string }[] | string;
}

/** Every tool call of the context and the results right after its answer, by call id. */
function callsAndResults(messages: readonly PrintedMessage[]): { calls: string[]; results: string[] } {
  const calls = messages.flatMap((message) =>
    message.role === 'assistant' && typeof message.content === 'object'
      ? message.content.flatMap((block) =>
          block.type === 'toolCall' && block.id !== undefined ? [block.id] : [],
        )
      : [],
  );
  const results = messages.flatMap((message) =>
    message.role === 'toolResult' && message.toolCallId !== undefined ? [message.toolCallId] : [],
  );
  return { calls: calls.sort(), results: results.sort() };
}

const sessionIds: Record<(typeof transcriptSampleNames)[number], string> = {
  'claude-code-tools.jsonl': '7d3b2f1e-5c4a-4e8b-9a61-2f0c8d9e1a01',
  'claude-code-compaction.jsonl': '9e8d7c6b-1111-4222-8333-444455556666',
  'codex-rollout.jsonl': '0199a2b3-c4d5-7e6f-8a9b-0c1d2e3f4a5b',
  'codex-legacy-rollout.jsonl': '2c9f4a1e-7b3d-4e8a-9f60-1a2b3c4d5e6f',
};

describe('strata import of Claude Code and Codex transcripts', () => {
  describe.each(transcriptSampleNames)('given the sample %s and an empty SQLite store', (name) => {
    it('detects the format, imports it, pairs every tool call in its context and exports the original byte for byte', async () => {
      const imported = await strata(['import', transcriptSamplePath(name), '--store', store]);
      expect(imported.err()).toContain(
        `read as a ${name.startsWith('codex') ? 'codex' : 'claude-code'} transcript`,
      );
      expect(imported.code).toBe(0);
      const sessionId = sessionIds[name];
      expect(imported.out()).toBe(`${sessionId}\n`);

      const context = await strata(['context', '--session', sessionId, '--store', store, '--json']);
      expect(context.code).toBe(0);
      const printed = JSON.parse(context.out()) as {
        messages: PrintedMessage[];
        repairs: { synthesizedResults: string[]; droppedOrphanResults: string[] };
      };
      const { calls, results } = callsAndResults(printed.messages);
      expect(calls.length).toBeGreaterThan(0);
      expect(results).toEqual(calls);
      expect(printed.repairs.synthesizedResults).toEqual([]);
      expect(printed.repairs.droppedOrphanResults).toEqual([]);

      const original = await strata(['export', sessionId, '--store', store, '--format', 'original']);
      expect(original.code).toBe(0);
      expect(Buffer.from(original.out(), 'utf8').equals(readTranscriptSample(name))).toBe(true);

      const again = await strata(['import', transcriptSamplePath(name), '--store', store]);
      expect(again.code).toBe(0);
      expect(again.err()).toContain('unchanged');
    });
  });

  describe('given --format', () => {
    it('converts as told, and a file of another format fails naming a line, storing nothing', async () => {
      const forced = await strata([
        'import',
        transcriptSamplePath('codex-rollout.jsonl'),
        '--store',
        store,
        '--format',
        'codex',
      ]);
      expect(forced.code).toBe(0);
      const wrong = await strata([
        'import',
        transcriptSamplePath('claude-code-tools.jsonl'),
        '--store',
        store,
        '--format',
        'pi',
      ]);
      expect(wrong.code).toBe(1);
      expect(wrong.err()).toMatch(/claude-code-tools\.jsonl:1: .*nothing was imported/);
      const unknown = await strata([
        'import',
        transcriptSamplePath('codex-rollout.jsonl'),
        '--format',
        'gemini',
      ]);
      expect(unknown.code).toBe(2);
      expect(unknown.err()).toContain('--format must be pi, claude-code, codex or auto');
    });
  });

  describe('given a transcript with a malformed line', () => {
    it('names the line and stores nothing', async () => {
      const lines = readTranscriptSample('claude-code-tools.jsonl').toString('utf8').split('\n');
      lines[6] = lines[6]!.slice(0, 40);
      const file = join(directory, 'broken.jsonl');
      writeFileSync(file, lines.join('\n'));
      const imported = await strata(['import', file, '--store', store]);
      expect(imported.code).toBe(1);
      expect(imported.err()).toMatch(/broken\.jsonl:7: invalid JSON.*\(bad-json\); nothing was imported/);
      const exported = await strata(['export', sessionIds['claude-code-tools.jsonl'], '--store', store]);
      expect(exported.code).toBe(1);
      expect(exported.err()).toContain('not in the store');
    });
  });

  describe('given a session imported from a pi file', () => {
    it('refuses --format original: the session has no other original than its pi export', async () => {
      const file = join(directory, 'pi.jsonl');
      writeFileSync(
        file,
        '{"type":"session","version":3,"id":"pi-1","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}\n',
      );
      expect((await strata(['import', file, '--store', store])).code).toBe(0);
      const original = await strata(['export', 'pi-1', '--store', store, '--format', 'original']);
      expect(original.code).toBe(1);
      expect(original.err()).toContain('was not converted from a Claude Code or Codex file');
    });
  });
});
