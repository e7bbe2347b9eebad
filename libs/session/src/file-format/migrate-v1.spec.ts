import { legacyEntryId } from './legacy-entry-ids';
import { parseSessionFile } from './parse-session-file';
import { SessionFileError } from './session-file-error';

const jsonl = (...objects: readonly unknown[]): string =>
  objects.map((object) => `${JSON.stringify(object)}\n`).join('');

const v1Header = {
  type: 'session',
  id: 'legacy-session',
  timestamp: '2025-11-01T08:00:00.000Z',
  cwd: '/repo',
  provider: 'anthropic',
  modelId: 'claude-sonnet-4-5',
  thinkingLevel: 'off',
  branchedFrom: '/old/file.jsonl',
};
const user = (text: string) => ({
  type: 'message',
  timestamp: '2025-11-01T08:00:01.000Z',
  message: { role: 'user', content: [{ type: 'text', text }], timestamp: 1761984001000 },
});
const assistant = (text: string) => ({
  type: 'message',
  timestamp: '2025-11-01T08:00:02.000Z',
  message: {
    role: 'assistant',
    content: [{ type: 'text', text }],
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0 },
    stopReason: 'stop',
    timestamp: 1761984002000,
  },
});
const modelChange = {
  type: 'model_change',
  timestamp: '2025-11-01T08:00:03.000Z',
  provider: 'openai',
  modelId: 'gpt-5',
};
const compaction = {
  type: 'compaction',
  timestamp: '2025-11-01T08:00:04.000Z',
  summary: 'So far…',
  firstKeptEntryIndex: 3,
  tokensBefore: 1234,
};
const v1Text = jsonl(
  v1Header,
  user('one'),
  assistant('two'),
  user('three'),
  modelChange,
  compaction,
  user('four'),
);
const idAt = (fileIndex: number, taken: readonly string[] = []) =>
  legacyEntryId('legacy-session', fileIndex, new Set(taken));

describe('a v1 file', () => {
  const parsed = parseSessionFile(v1Text, { mode: 'strict' });

  it('reports version 1 and that it was migrated', () => {
    expect(parsed.sourceVersion).toBe(1);
    expect(parsed.migrated).toBe(true);
  });

  it('moves the header to version 3 and keeps every v1 header field', () => {
    expect(parsed.header).toEqual({ ...v1Header, version: 3 });
    expect(Object.keys(parsed.header).slice(0, 3)).toEqual(['type', 'version', 'id']);
  });

  it('gives each entry the hash id of its file index and chains it to the previous entry', () => {
    const ids = parsed.entries.map((entry) => entry.id);
    expect(ids[0]).toBe(idAt(1));
    expect(ids).toEqual([1, 2, 3, 4, 5, 6].map((fileIndex) => idAt(fileIndex)));
    expect(parsed.entries.map((entry) => entry.parentId)).toEqual([null, ...ids.slice(0, -1)]);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('writes type, id and parentId first and keeps the other fields', () => {
    expect(Object.keys(parsed.entries[0] ?? {})).toEqual(['type', 'id', 'parentId', 'timestamp', 'message']);
    expect(parsed.entries[1]).toMatchObject({ message: assistant('two').message });
  });

  it('turns firstKeptEntryIndex (header = index 0) into the id of that entry and drops the index', () => {
    const migrated = parsed.entries[4];
    expect(migrated).toMatchObject({ type: 'compaction', firstKeptEntryId: idAt(3), tokensBefore: 1234 });
    expect(migrated).not.toHaveProperty('firstKeptEntryIndex');
    expect(parsed.entries[2]?.id).toBe(idAt(3));
  });

  // Deliberate difference: upstream v12.5 leaves v1 model_change entries without `model`,
  // so its model tracking ignores them.
  it('adds model "provider/modelId" to a v1 model_change and keeps provider and modelId', () => {
    expect(parsed.entries[3]).toMatchObject({
      type: 'model_change',
      model: 'openai/gpt-5',
      provider: 'openai',
      modelId: 'gpt-5',
    });
  });

  it('migrates to the same ids every time', () => {
    expect(parseSessionFile(v1Text, { mode: 'strict' })).toEqual(parsed);
  });

  it('renames a hookMessage role on the way through v2', () => {
    const hook = {
      type: 'message',
      timestamp: '2025-11-01T08:00:05.000Z',
      message: { role: 'hookMessage', customType: 'x', content: 'y', display: false, timestamp: 5 },
    };
    const entry = parseSessionFile(jsonl(v1Header, hook), { mode: 'strict' }).entries[0];
    expect(entry?.type === 'message' && entry.message.role).toBe('custom');
  });
});

function strictError(text: string): SessionFileError {
  try {
    parseSessionFile(text, { mode: 'strict' });
  } catch (error) {
    if (error instanceof SessionFileError) return error;
    throw error;
  }
  throw new Error('expected a SessionFileError');
}

describe('a v1 file with a problem', () => {
  it('rejects a compaction index that points at no entry (strict)', () => {
    const text = jsonl(v1Header, user('one'), { ...compaction, firstKeptEntryIndex: 9 });
    expect(strictError(text)).toMatchObject({ line: 3, code: 'invalid-reference' });
  });

  it('rejects a compaction index that points at the header', () => {
    const text = jsonl(v1Header, user('one'), { ...compaction, firstKeptEntryIndex: 0 });
    expect(strictError(text)).toMatchObject({ code: 'invalid-reference' });
  });

  it('rejects a compaction index that points forward, past the compaction', () => {
    const text = jsonl(v1Header, user('one'), { ...compaction, firstKeptEntryIndex: 3 }, user('two'));
    expect(strictError(text)).toMatchObject({ line: 3, code: 'invalid-reference' });
  });

  it('in lenient mode skips a compaction whose kept entry was itself skipped', () => {
    const broken = { type: 'message', timestamp: 't', message: { role: 'nobody' } };
    const text = jsonl(v1Header, user('one'), broken, { ...compaction, firstKeptEntryIndex: 2 }, user('two'));
    const parsed = parseSessionFile(text, { mode: 'lenient' });
    expect(parsed.skipped.map((problem) => [problem.line, problem.code])).toEqual([
      [3, 'schema-violation'],
      [4, 'invalid-reference'],
    ]);
    expect(parsed.entries.map((entry) => entry.type)).toEqual(['message', 'message']);
  });

  it('rejects a compaction without an integer index', () => {
    const text = jsonl(v1Header, user('one'), { ...compaction, firstKeptEntryIndex: '1' });
    expect(strictError(text)).toMatchObject({ code: 'schema-violation' });
  });

  it('in lenient mode skips a bad line and chains the next entry to the last good one', () => {
    const text = `${jsonl(v1Header, user('one'))}not json\n${jsonl(user('two'))}`;
    const parsed = parseSessionFile(text, { mode: 'lenient' });
    expect(parsed.skipped).toEqual([expect.objectContaining({ line: 3, code: 'bad-json' })]);
    expect(parsed.entries.map((entry) => entry.parentId)).toEqual([null, parsed.entries[0]?.id]);
  });

  it('keeps counting file indexes past a schema-invalid JSON line, like the reference file array', () => {
    const broken = { type: 'message', timestamp: 't', message: { role: 'nobody' } };
    const text = jsonl(v1Header, user('one'), broken, user('two'), { ...compaction, firstKeptEntryIndex: 3 });
    const parsed = parseSessionFile(text, { mode: 'lenient' });
    expect(parsed.skipped).toEqual([expect.objectContaining({ line: 3, code: 'schema-violation' })]);
    expect(parsed.entries[1]?.id).toBe(idAt(3));
    expect(parsed.entries[2]).toMatchObject({ firstKeptEntryId: idAt(3), parentId: idAt(3) });
  });
});
