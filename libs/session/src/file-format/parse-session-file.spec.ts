import type { SessionEntry } from '../entries/entries';
import { buildSessionContext } from '../context/build-session-context';
import { sessionModelOf } from '../context/session-views';
import { parseSessionFile } from './parse-session-file';
import { SessionFileError } from './session-file-error';

const jsonl = (...objects: readonly unknown[]): string =>
  objects.map((object) => `${JSON.stringify(object)}\n`).join('');
const at = (second: number): string => `2026-02-01T10:00:${String(second).padStart(2, '0')}.000Z`;

const v3Header = { type: 'session', version: 3, id: 'sess-3', timestamp: at(0), cwd: '/repo', title: 'Demo' };
const userEntry = (id: string, parentId: string | null, text: string) => ({
  type: 'message',
  id,
  parentId,
  timestamp: at(1),
  message: { role: 'user', content: [{ type: 'text', text }], timestamp: 1769940001000 },
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

describe('a v3 file', () => {
  const text = jsonl(
    v3Header,
    userEntry('a1', null, 'hello'),
    { type: 'label', id: 'a2', parentId: 'a1', timestamp: at(2), targetId: 'a1', label: 'start' },
    { type: 'model_change', id: 'a3', parentId: 'a2', timestamp: at(3), model: 'openai/gpt-5', role: 'smol' },
  );

  it('parses without migration and keeps header and entries as written', () => {
    const parsed = parseSessionFile(text, { mode: 'strict' });
    expect(parsed.sourceVersion).toBe(3);
    expect(parsed.migrated).toBe(false);
    expect(parsed.skipped).toEqual([]);
    expect(parsed.header).toEqual(v3Header);
    expect(parsed.entries.map((entry) => entry.id)).toEqual(['a1', 'a2', 'a3']);
    expect(parsed.entries[2]).toMatchObject({ model: 'openai/gpt-5', role: 'smol' });
  });

  it('ignores blank lines, a missing final newline and CRLF line ends', () => {
    const messy = `\n${text.replace(/\n/g, '\r\n')}\n\n`.trimEnd();
    expect(parseSessionFile(messy, { mode: 'strict' }).entries).toHaveLength(3);
  });

  it('keeps unknown fields of entries and messages', () => {
    const entry = { ...userEntry('a1', null, 'hi'), extra: { nested: true } };
    const parsed = parseSessionFile(jsonl(v3Header, entry), { mode: 'strict' });
    expect(parsed.entries[0]).toEqual(entry);
  });
});

describe('a v2 file', () => {
  const header = { type: 'session', version: 2, id: 'sess-2', timestamp: at(0), cwd: '/repo' };
  const hookMessage = {
    type: 'message',
    id: 'b2',
    parentId: 'b1',
    timestamp: at(2),
    message: { role: 'hookMessage', customType: 'todo', content: 'remember', display: true, timestamp: 1 },
  };
  const parsed = parseSessionFile(jsonl(header, userEntry('b1', null, 'hi'), hookMessage), {
    mode: 'strict',
  });

  it('is migrated to v3 with the header at version 3', () => {
    expect(parsed.sourceVersion).toBe(2);
    expect(parsed.migrated).toBe(true);
    expect(parsed.header).toEqual({ ...header, version: 3 });
  });

  it('renames the hookMessage role to custom and keeps the rest', () => {
    expect(parsed.entries[1]).toEqual({
      ...hookMessage,
      message: { ...hookMessage.message, role: 'custom' },
    });
  });

  it('keeps the ids and parents it already has', () => {
    expect(parsed.entries.map((entry) => [entry.id, entry.parentId])).toEqual([
      ['b1', null],
      ['b2', 'b1'],
    ]);
  });
});

describe('a v3 file with a problem', () => {
  const good = userEntry('a1', null, 'hello');
  const cases: readonly [string, string, number, string, RegExp][] = [
    ['bad JSON', jsonl(v3Header, good).concat('{"type":"message",\n'), 3, 'bad-json', /invalid JSON/],
    [
      'a schema violation',
      jsonl(v3Header, { ...good, message: { ...good.message, content: [{ type: 'text', text: 5 }] } }),
      2,
      'schema-violation',
      /at message\.content/,
    ],
    [
      'an unknown entry type',
      jsonl(v3Header, good, { type: 'mystery', id: 'x' }),
      3,
      'unknown-entry-type',
      /mystery/,
    ],
    ['a second header', jsonl(v3Header, good, v3Header), 3, 'unknown-entry-type', /second session header/],
    ['a duplicate id', jsonl(v3Header, good, userEntry('a1', null, 'again')), 3, 'duplicate-id', /a1/],
    ['an entry that is not an object', jsonl(v3Header, good, [1, 2]), 3, 'schema-violation', /JSON object/],
    [
      'a missing parentId',
      jsonl(v3Header, { ...good, parentId: undefined }),
      2,
      'schema-violation',
      /parentId/,
    ],
  ];

  it.each(cases)('strict mode throws at the line of %s', (_name, text, line, code, reason) => {
    const error = strictError(text);
    expect(error).toMatchObject({ line, code });
    expect(error.reason).toMatch(reason);
    expect(error.message).toContain(`line ${line}`);
  });

  it.each(cases)('lenient mode skips and reports the line of %s', (_name, text, line, code) => {
    const parsed = parseSessionFile(text, { mode: 'lenient' });
    expect(parsed.skipped).toEqual([expect.objectContaining({ line, code })]);
    expect(parsed.entries.length).toBe(text.split('\n').filter((content) => content !== '').length - 2);
  });
});

describe('a file without a proper header', () => {
  it.each([
    ['empty', ''],
    ['only blank lines', '\n\n'],
    ['an entry first', jsonl(userEntry('a1', null, 'hi'))],
  ])('is rejected in both modes when %s', (_name, text) => {
    for (const mode of ['strict', 'lenient'] as const) {
      expect(() => parseSessionFile(text, { mode })).toThrow(SessionFileError);
    }
    expect(strictError(text).code).toBe('missing-header');
  });

  it('names the header line when the header is bad JSON (strict)', () => {
    expect(strictError('{oops\n')).toMatchObject({ line: 1, code: 'bad-json' });
  });

  it('skips bad JSON before the header in lenient mode', () => {
    const parsed = parseSessionFile(`{oops\n${jsonl(v3Header)}`, { mode: 'lenient' });
    expect(parsed.skipped).toEqual([expect.objectContaining({ line: 1, code: 'bad-json' })]);
    expect(parsed.header.id).toBe('sess-3');
  });

  it('rejects a version newer than 3', () => {
    expect(strictError(jsonl({ ...v3Header, version: 4 }))).toMatchObject({
      line: 1,
      code: 'unsupported-version',
    });
  });

  it('rejects a header without id unless a fallback is given', () => {
    const { id: _id, ...withoutId } = v3Header;
    expect(strictError(jsonl(withoutId))).toMatchObject({ line: 1, code: 'schema-violation' });
    const parsed = parseSessionFile(jsonl(withoutId), {
      mode: 'strict',
      sessionIdFallback: 'from-file-name',
    });
    expect(parsed.header.id).toBe('from-file-name');
  });
});

describe('entries returned by the parser', () => {
  it('are typed v3 entries', () => {
    const parsed = parseSessionFile(jsonl(v3Header, userEntry('a1', null, 'hi')), { mode: 'strict' });
    const entry: SessionEntry | undefined = parsed.entries[0];
    expect(entry?.type === 'message' && entry.message.role).toBe('user');
  });
});

describe('a v3 file as pi 0.73.1 writes it (issue 13, items 9 and 10)', () => {
  const header = {
    type: 'session',
    version: 3,
    id: '019a0000-aaaa-7bbb-8ccc-000000000001',
    timestamp: at(0),
    cwd: '/repo',
  };
  const assistantEntry = {
    type: 'message',
    id: 'b2',
    parentId: 'b1',
    timestamp: at(2),
    message: {
      role: 'assistant',
      content: [{ type: 'text', text: 'hi' }],
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      usage: { input: 10, output: 2, cacheRead: 0, cacheWrite: 0, totalTokens: 12 },
      stopReason: 'stop',
      timestamp: 1769940002000,
    },
  };
  const modelChange = {
    type: 'model_change',
    id: 'b3',
    parentId: 'b2',
    timestamp: at(3),
    provider: 'openai',
    modelId: 'gpt-5.1-codex',
  };
  const extensionCompaction = {
    type: 'compaction',
    id: 'b4',
    parentId: 'b3',
    timestamp: at(4),
    summary: 'Summary from an extension',
    firstKeptEntryId: 'b2',
    tokensBefore: 12,
    details: { artifactIndex: [{ id: 7, path: 'notes.md' }], readFiles: 'see artifacts' },
    fromHook: true,
  };
  const extensionBranchSummary = {
    type: 'branch_summary',
    id: 'b5',
    parentId: 'b4',
    timestamp: at(5),
    fromId: 'b2',
    summary: 'Branch summary from an extension',
    details: 'free-form',
    fromHook: true,
  };
  const text = jsonl(
    header,
    userEntry('b1', null, 'hello'),
    assistantEntry,
    modelChange,
    extensionCompaction,
    extensionBranchSummary,
  );

  it('reads every line strictly, extension details and the model change as written', () => {
    const parsed = parseSessionFile(text, { mode: 'strict' });
    expect(parsed.skipped).toEqual([]);
    expect(parsed.entries).toEqual([
      userEntry('b1', null, 'hello'),
      assistantEntry,
      modelChange,
      extensionCompaction,
      extensionBranchSummary,
    ]);
  });

  it('uses the model change for the context and the window', () => {
    const { entries } = parseSessionFile(text, { mode: 'strict' });
    expect(buildSessionContext(entries, undefined).models).toEqual({ default: 'openai/gpt-5.1-codex' });
    expect(sessionModelOf(entries)).toBe('openai/gpt-5.1-codex');
  });

  it("still holds the agent's own compactions to file lists", () => {
    const { fromHook: _fromHook, ...ownCompaction } = extensionCompaction;
    expect(
      strictError(jsonl(header, userEntry('b1', null, 'hello'), assistantEntry, ownCompaction)),
    ).toMatchObject({
      line: 4,
      code: 'schema-violation',
      reason: expect.stringContaining('schema violation at details.readFiles') as unknown,
    });
    const lists = { ...ownCompaction, details: { readFiles: ['a.ts'], modifiedFiles: [] } };
    expect(
      parseSessionFile(jsonl(header, userEntry('b1', null, 'hello'), assistantEntry, lists), {
        mode: 'strict',
      }).entries,
    ).toHaveLength(3);
  });

  it('bounds extension details like any JSON: a line nested too deeply is refused', () => {
    let deep: unknown = 'leaf';
    for (let level = 0; level < 600; level += 1) deep = [deep];
    const tooDeep = { ...extensionCompaction, details: deep };
    expect(strictError(jsonl(header, userEntry('b1', null, 'hello'), assistantEntry, tooDeep))).toMatchObject(
      {
        line: 4,
        code: 'bad-json',
      },
    );
  });
});
