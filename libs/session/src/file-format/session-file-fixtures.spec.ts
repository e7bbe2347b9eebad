// The two real v1 pi sessions (reference §12), read from ../shared/fixtures/pi.
import { describeWithFixture, readPiFixture } from '@strata/testing';
import { parseSessionFile } from './parse-session-file';
import { serializeSessionFile } from './serialize-session-file';

function countBy<T>(items: readonly T[], key: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return counts;
}

describeWithFixture('before-compaction.jsonl', 'the before-compaction fixture (v1)', () => {
  const text = readPiFixture('before-compaction.jsonl');
  const parsed = parseSessionFile(text, { mode: 'strict' });

  it('parses in strict mode into 1002 entries, 990 of them messages', () => {
    expect(parsed.sourceVersion).toBe(1);
    expect(parsed.entries).toHaveLength(1002);
    expect(countBy(parsed.entries, (entry) => entry.type)).toEqual({
      message: 990,
      compaction: 2,
      model_change: 5,
      thinking_level_change: 5,
    });
  });

  it('keeps branchedFrom and the other v1 header fields', () => {
    expect(parsed.header).toMatchObject({ version: 3, provider: 'anthropic', modelId: 'claude-opus-4-5' });
    expect(parsed.header.branchedFrom).toEqual(expect.stringContaining('d97339c6'));
  });

  it('maps the compactions firstKeptEntryIndex 293 and 551 to the ids of those file lines', () => {
    const fileLines = text.split('\n');
    const compactions = parsed.entries.flatMap((entry) => (entry.type === 'compaction' ? [entry] : []));
    expect(compactions.map((entry) => entry.tokensBefore)).toEqual([175004, 185014]);
    compactions.forEach((compaction, position) => {
      const fileIndex = [293, 551][position]!;
      const target = parsed.entries[fileIndex - 1]!;
      expect(compaction.firstKeptEntryId).toBe(target.id);
      expect(fileLines[fileIndex]).toContain(`"timestamp":"${target.timestamp}"`);
    });
  });

  it('gives every v1 model_change a model', () => {
    const models = parsed.entries.flatMap((entry) => (entry.type === 'model_change' ? [entry.model] : []));
    expect(models).toHaveLength(5);
    for (const model of models) expect(model).toMatch(/^[^/]+\/.+/);
  });

  it('survives serialise then parse unchanged', () => {
    const again = parseSessionFile(serializeSessionFile(parsed.header, parsed.entries), { mode: 'strict' });
    expect(again.sourceVersion).toBe(3);
    expect(again.entries).toEqual(parsed.entries);
    expect(again.header).toEqual(parsed.header);
  });
});

describeWithFixture('large-session.jsonl', 'the large-session fixture (v1)', () => {
  const parsed = parseSessionFile(readPiFixture('large-session.jsonl'), { mode: 'strict' });

  it('parses in strict mode into 1018 entries', () => {
    expect(parsed.entries).toHaveLength(1018);
    expect(parsed.skipped).toEqual([]);
    expect(countBy(parsed.entries, (entry) => entry.type)).toEqual({
      message: 914,
      thinking_level_change: 103,
      model_change: 1,
    });
  });

  it('has unique ids forming one chain from a single root', () => {
    const ids = parsed.entries.map((entry) => entry.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(parsed.entries.filter((entry) => entry.parentId === null)).toHaveLength(1);
    expect(parsed.entries.slice(1).map((entry) => entry.parentId)).toEqual(ids.slice(0, -1));
  });
});
