import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serializeSessionFile } from '@strata/session';
import { describeWithFixture, session } from '@strata/testing';
import { runCli } from '../run-cli';
import { recordingIo } from '../testing-io';
import { commands } from '.';

describe('strata prepare-compaction --file', () => {
  const builder = session();
  builder.editTurns(6);
  const file = join(mkdtempSync(join(tmpdir(), 'strata-cli-')), 'session.jsonl');
  writeFileSync(file, serializeSessionFile(builder.header, builder.entries));

  it('prints the preparation as JSON: cut, split turn, tokens before, counts and file lists', async () => {
    const io = recordingIo();
    const code = await runCli(
      [
        'prepare-compaction',
        '--file',
        file,
        '--keep-recent-tokens',
        '250',
        '--tokenizer',
        'chars4',
        '--json',
      ],
      io,
      commands,
    );
    expect(code).toBe(0);
    const report = JSON.parse(io.out()) as Record<string, unknown>;
    expect(report.skipped).toBe(false);
    expect(typeof report.firstKeptEntryId).toBe('string');
    const kept = builder.entries.find((entry) => entry.id === report.firstKeptEntryId);
    expect(kept?.type === 'message' && kept.message.role).not.toBe('toolResult');
    expect(kept).toBeDefined();
    expect(report.messagesToSummarize as number).toBeGreaterThan(0);
    expect(report.keptMessages as number).toBeGreaterThan(0);
    expect(report.modifiedFiles).toEqual(expect.arrayContaining(['src/module-0.ts']));
  });

  it('reports a skip when everything fits in the keep budget', async () => {
    const io = recordingIo();
    await runCli(['prepare-compaction', '--file', file, '--json'], io, commands);
    expect(JSON.parse(io.out())).toMatchObject({ skipped: true, reason: 'nothing_to_summarize' });
  });

  it('with --force prepares a context that fits in the keep budget, keeping its last turn (issue 25)', async () => {
    const io = recordingIo();
    expect(await runCli(['prepare-compaction', '--file', file, '--force', '--json'], io, commands)).toBe(0);
    const lastTurn = builder.entries[builder.entries.length - 4];
    expect(lastTurn?.type === 'message' && lastTurn.message.role).toBe('user');
    expect(JSON.parse(io.out())).toMatchObject({ skipped: false, firstKeptEntryId: lastTurn?.id });
  });

  it('rejects a keep budget that is not a positive integer', async () => {
    const io = recordingIo();
    expect(
      await runCli(['prepare-compaction', '--file', file, '--keep-recent-tokens', '0'], io, commands),
    ).toBe(2);
    expect(io.err()).toContain('--keep-recent-tokens must be a positive integer');
  });
});

describeWithFixture('large-session.jsonl', 'strata prepare-compaction on large-session.jsonl', (fixture) => {
  it('gives the reference preparation figures with chars/4', async () => {
    const io = recordingIo();
    await runCli(['prepare-compaction', '--file', fixture, '--tokenizer', 'chars4', '--json'], io, commands);
    expect(JSON.parse(io.out())).toMatchObject({
      isSplitTurn: true,
      tokensBefore: 177657,
      messagesToSummarize: 792,
      turnPrefixMessages: 3,
      keptMessages: 119,
    });
  });
});
