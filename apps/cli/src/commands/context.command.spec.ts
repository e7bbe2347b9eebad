import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serializeSessionFile } from '@strata/session';
import { describeWithFixture, session } from '@strata/testing';
import { runCli } from '../run-cli';
import { recordingIo } from '../testing-io';
import { commands } from '.';

function writeSession(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'strata-cli-')), 'session.jsonl');
  writeFileSync(file, text);
  return file;
}

const builder = session()
  .user('Fix the failing date test in tests/date.test.ts')
  .assistantToolCalls([{ name: 'read', arguments: { path: 'tests/date.test.ts' } }])
  .toolResult('read', 'import { fmt } from "../src/date";')
  .assistant('The test depends on the local time zone.');
const branchPoint = builder.entries[0]!.id;
builder.branchFrom(branchPoint).assistant('A different answer on another branch.');
const sessionFile = writeSession(serializeSessionFile(builder.header, builder.entries));

describe('strata context --file', () => {
  it('prints one JSON object with the agent messages, the provider messages, thinking level and models', async () => {
    const io = recordingIo();
    const code = await runCli(['context', '--file', sessionFile, '--json'], io, commands);
    expect(code).toBe(0);
    const printed = JSON.parse(io.out()) as Record<string, unknown>;
    expect(Object.keys(printed)).toEqual(
      expect.arrayContaining(['messages', 'llm', 'thinkingLevel', 'models']),
    );
    const messages = printed.messages as { role: string }[];
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(printed.thinkingLevel).toBe('off');
  });

  it('builds the context at the leaf given with --leaf', async () => {
    const io = recordingIo();
    const leaf = builder.entries[3]!.id;
    await runCli(['context', '--file', sessionFile, '--leaf', leaf, '--json'], io, commands);
    const printed = JSON.parse(io.out()) as { messages: { role: string }[]; llm: { role: string }[] };
    expect(printed.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'toolResult',
      'assistant',
    ]);
    expect(printed.llm).toHaveLength(4);
  });

  it('prints a readable view without --json', async () => {
    const io = recordingIo();
    await runCli(['context', '--file', sessionFile, '--tokenizer', 'chars4'], io, commands);
    expect(io.out()).toMatch(/^leaf e0005: 2 messages, ~\d+ tokens \(chars4\)/);
    expect(io.out()).toContain('A different answer on another branch.');
  });

  it('names an unknown leaf, a missing file and a bad line on stderr with a non-zero exit', async () => {
    const unknownLeaf = recordingIo();
    expect(await runCli(['context', '--file', sessionFile, '--leaf', 'nope'], unknownLeaf, commands)).toBe(1);
    expect(unknownLeaf.err()).toContain("entry 'nope' is not in");

    const missing = recordingIo();
    expect(await runCli(['context', '--file', '/nonexistent/file.jsonl'], missing, commands)).toBe(1);
    expect(missing.err()).toContain('cannot read /nonexistent/file.jsonl: no such file');

    const broken = writeSession(`${serializeSessionFile(builder.header, builder.entries)}{not json\n`);
    const badLine = recordingIo();
    expect(await runCli(['context', '--file', broken], badLine, commands)).toBe(1);
    expect(badLine.err()).toMatch(new RegExp(`${broken}:7: .*bad-json`));
    expect(badLine.out()).toBe('');
  });

  it('rejects a missing --file (or --session) and an unknown tokenizer as usage errors', async () => {
    const noFile = recordingIo();
    expect(await runCli(['context'], noFile, commands)).toBe(2);
    expect(noFile.err()).toContain('--file or --session is required');
    const badTokenizer = recordingIo();
    expect(
      await runCli(['context', '--file', sessionFile, '--tokenizer', 'gpt2'], badTokenizer, commands),
    ).toBe(2);
  });
});

describe('strata context --file on a v3 file as pi 0.73.1 writes it (issue 13, items 9 and 10)', () => {
  const at = (second: number): string => `2026-02-01T10:00:0${second}.000Z`;
  const lines = [
    {
      type: 'session',
      version: 3,
      id: '019a0000-aaaa-7bbb-8ccc-000000000002',
      timestamp: at(0),
      cwd: '/repo',
    },
    {
      type: 'message',
      id: 'c1',
      parentId: null,
      timestamp: at(1),
      message: { role: 'user', content: 'hello', timestamp: 1769940001000 },
    },
    {
      type: 'model_change',
      id: 'c2',
      parentId: 'c1',
      timestamp: at(2),
      provider: 'openai',
      modelId: 'gpt-5.1-codex',
    },
    {
      type: 'compaction',
      id: 'c3',
      parentId: 'c2',
      timestamp: at(3),
      summary: 'An extension summarised this.',
      firstKeptEntryId: 'c1',
      tokensBefore: 5,
      details: { readFiles: 42, artifacts: ['a'] },
      fromHook: true,
    },
  ];
  const piFile = writeSession(lines.map((line) => `${JSON.stringify(line)}\n`).join(''));

  it('reads the extension compaction strictly and reports the model of the model change', async () => {
    const io = recordingIo();
    expect(await runCli(['context', '--file', piFile, '--json'], io, commands)).toBe(0);
    expect(io.err()).toBe('');
    const printed = JSON.parse(io.out()) as { messages: { role: string }[]; models: Record<string, string> };
    expect(printed.messages.map((message) => message.role)).toEqual(['compactionSummary', 'user']);
    expect(printed.models).toEqual({ default: 'openai/gpt-5.1-codex' });
  });
});

describeWithFixture('before-compaction.jsonl', 'strata context on before-compaction.jsonl', (fixture) => {
  it('gives the reference message counts, with the two unanswered tool calls answered', async () => {
    const io = recordingIo();
    await runCli(['context', '--file', fixture, '--json', '--tokenizer', 'chars4'], io, commands);
    const printed = JSON.parse(io.out()) as {
      messages: { role: string }[];
      repairs: { synthesizedResults: string[]; omittedFailedAnswers: string[] };
    };
    const counts: Record<string, number> = {};
    for (const message of printed.messages) counts[message.role] = (counts[message.role] ?? 0) + 1;
    // The reference's 446 messages (192 tool results) plus one synthetic result per unanswered
    // call, less the one answer that failed without content.
    expect(printed.repairs.synthesizedResults).toHaveLength(2);
    expect(printed.repairs.omittedFailedAnswers).toHaveLength(1);
    expect(counts).toEqual({
      compactionSummary: 1,
      user: 31,
      assistant: 218,
      toolResult: 194,
      bashExecution: 3,
    });
  });
});
