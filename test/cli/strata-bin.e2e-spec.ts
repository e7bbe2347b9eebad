import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeWithFixture, repositoryRoot } from '@strata/testing';

function strata(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [join(repositoryRoot, 'bin', 'strata.js'), ...args], {
    cwd: repositoryRoot,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('the strata executable', () => {
  it('lists its commands and exits 2 without one', () => {
    const result = strata();
    expect(result.status).toBe(2);
    expect(result.stdout).toContain('context');
    expect(result.stdout).toContain('prepare-compaction');
  });

  it('prints its version', () => {
    const result = strata('--version');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^strata \d+\.\d+\.\d+\S*\n$/);
  });

  it('names an unknown session in one line, with no stack trace, and exits 1', () => {
    const directory = mkdtempSync(join(tmpdir(), 'strata-bin-'));
    try {
      const result = strata(
        'compact',
        'no-such-session',
        '--store',
        `sqlite:${join(directory, 'strata.db')}`,
      );
      expect(result.status).toBe(1);
      expect(result.stderr).toBe('strata compact: session no-such-session is not in the store\n');
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('fails with a message on stderr for an unreadable file', () => {
    const result = strata('context', '--file', '/nonexistent.jsonl');
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('cannot read /nonexistent.jsonl');
  });
});

describeWithFixture('large-session.jsonl', 'the strata executable on large-session.jsonl', (fixture) => {
  it('prints the reference 914 messages as JSON', () => {
    const result = strata('context', '--file', fixture, '--json', '--tokenizer', 'chars4');
    expect(result.status).toBe(0);
    const printed = JSON.parse(result.stdout) as {
      messages: unknown[];
      llm: unknown[];
      repairs: { synthesizedResults: string[] };
    };
    // The reference's 914 messages, plus one synthetic result for each tool call left unanswered.
    expect(printed.messages.length - printed.repairs.synthesizedResults.length).toBe(914);
    expect(printed.llm).toHaveLength(printed.messages.length);
  });
});
