import { describeWithFixture, readPiFixture } from '@strata/testing';
import { sessionEntrySchema, sessionHeaderSchema, type SessionEntry, type SessionHeader } from './entries';
import { entryFieldProblems, headerFieldProblems } from './entry-rules';
import { isIsoDateTime } from './timestamps';

const header: SessionHeader = {
  type: 'session',
  version: 3,
  id: '0194f3a2b7c40001',
  timestamp: '2026-02-15T09:00:00.000Z',
  cwd: '/home/dev/acme',
};

const answer: SessionEntry = {
  type: 'message',
  id: '5d1e2b90',
  parentId: 'a0c4e8f2',
  timestamp: '2026-02-15T09:00:09.400Z',
  message: {
    role: 'assistant',
    content: [{ type: 'text', text: 'Probably timezone-dependent.' }],
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    usage: { input: 6120, output: 88, cacheRead: 0, cacheWrite: 6100, totalTokens: 12308 },
    stopReason: 'stop',
    timestamp: 1771146006100,
  },
};

const paths = (problems: readonly { path: readonly (string | number)[] }[]) =>
  problems.map((problem) => problem.path.join('.'));

describe('timestamps', () => {
  it.each([
    '2025-12-09T00:53:29.825Z',
    '2025-12-09T00:53:29Z',
    '2025-12-09T01:53:29+01:00',
    '2025-12-08T19:23:29.8-05:30',
  ])('accepts %s', (timestamp) => expect(isIsoDateTime(timestamp)).toBe(true));

  it.each([
    '',
    't',
    '2025-12-09',
    '2025-12-09T00:53:29',
    '2025-12-09 00:53:29Z',
    '2025-02-30T00:00:00Z',
    '1765241609825',
  ])('refuses %j', (timestamp) => expect(isIsoDateTime(timestamp)).toBe(false));
});

for (const name of ['before-compaction.jsonl', 'large-session.jsonl']) {
  describeWithFixture(name, `the timestamps of the pi fixture ${name}`, () => {
    it('are all ISO 8601 date-times', () => {
      const lines = readPiFixture(name)
        .split('\n')
        .filter((candidate) => candidate.trim() !== '');
      for (const line of lines) {
        expect(isIsoDateTime((JSON.parse(line) as { timestamp: string }).timestamp)).toBe(true);
      }
    });
  });
}

describe('the rules of a new entry', () => {
  it('finds nothing wrong with a well-formed entry or header', () => {
    expect(entryFieldProblems(answer)).toEqual([]);
    expect(headerFieldProblems(header)).toEqual([]);
    expect(sessionEntrySchema.safeParse(answer).success).toBe(true);
    expect(sessionHeaderSchema.safeParse(header).success).toBe(true);
  });

  it('names every field that breaks a rule', () => {
    const broken = {
      ...answer,
      id: 'a\u0000b',
      parentId: '..',
      timestamp: 'yesterday',
      message: { ...answer.message, usage: { input: 1e308, output: -1, cacheRead: 0, cacheWrite: 0 } },
    } as SessionEntry;
    expect(paths(entryFieldProblems(broken))).toEqual([
      'id',
      'parentId',
      'timestamp',
      'message.usage.input',
      'message.usage.output',
    ]);
    expect(sessionEntrySchema.safeParse(broken).error?.issues.map((issue) => issue.path.join('.'))).toEqual(
      paths(entryFieldProblems(broken)),
    );
  });

  it('checks each reference to an entry and the figures the read models add up', () => {
    const base = { id: 'e1', parentId: 'e0', timestamp: '2026-02-15T09:00:00Z' };
    expect(paths(entryFieldProblems({ ...base, type: 'label', targetId: '\n' }))).toEqual(['targetId']);
    expect(paths(entryFieldProblems({ ...base, type: 'branch_summary', fromId: '', summary: 's' }))).toEqual([
      'fromId',
    ]);
    expect(
      paths(
        entryFieldProblems({
          ...base,
          type: 'compaction',
          summary: 's',
          firstKeptEntryId: '.',
          tokensBefore: 1e10,
        }),
      ),
    ).toEqual(['firstKeptEntryId', 'tokensBefore']);
  });

  it('names the header fields that break a rule', () => {
    expect(paths(headerFieldProblems({ ...header, id: 'x'.repeat(513), timestamp: 'now' }))).toEqual([
      'id',
      'timestamp',
    ]);
    expect(sessionHeaderSchema.safeParse({ ...header, id: '\u2028' }).success).toBe(false);
  });
});
