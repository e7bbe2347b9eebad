// Hostile session files, field values: a field or a message field of the wrong type, an entry
// type no reader knows, a damaged header (no id, a future version, an entry first…), timestamps
// that are not ISO 8601 date-times, and usage figures out of their bounds.
import fc from 'fast-check';
import { sessionEntryTypes } from '@strata/session';
import type { FamilyMutation } from './family-mutation';
import { fraction, jsonText, parsedLine, replaceEntry, type JsonRecord } from './file-lines';

const knownTypes = new Set<string>([...sessionEntryTypes, 'session']);

const wrongValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.string({ maxLength: 8 }),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 4 }), fc.integer(), { maxKeys: 2 }),
);

const entryFields = [
  'id',
  'parentId',
  'timestamp',
  'type',
  'message',
  'customType',
  'data',
  'summary',
  'firstKeptEntryId',
  'targetId',
  'label',
  'fromId',
  'details',
] as const;
const messageFields = ['role', 'content', 'timestamp', 'toolCallId', 'toolName', 'isError', 'usage'] as const;

export const wrongType: fc.Arbitrary<FamilyMutation> = fc
  .record({
    field: fc.constantFrom(...entryFields),
    messageField: fc.option(fc.constantFrom(...messageFields), { nil: undefined }),
    value: wrongValue,
    where: fraction,
  })
  .map(({ field, messageField, value, where }) => ({
    family: 'wrong-type' as const,
    mutate: (lines) =>
      replaceEntry(lines, where, (entry) => {
        const message = entry.message;
        if (messageField !== undefined && typeof message === 'object' && message !== null) {
          return { ...entry, message: { ...(message as JsonRecord), [messageField]: value } };
        }
        return { ...entry, [field]: value };
      }),
  }));

export const unknownType: fc.Arbitrary<FamilyMutation> = fc
  .record({
    type: fc.oneof(
      fc.string({ maxLength: 12 }).filter((type) => !knownTypes.has(type)),
      fc.constantFrom('session', 'Message', 'MESSAGE', 'message ', 'compaction_v2', '__proto__'),
    ),
    where: fraction,
  })
  .map(({ type, where }) => ({
    family: 'unknown-type' as const,
    mutate: (lines) => replaceEntry(lines, where, (entry) => ({ ...entry, type })),
  }));

export const badHeader: fc.Arbitrary<FamilyMutation> = fc
  .record({
    change: fc.constantFrom(
      'no-id',
      'empty-id',
      'numeric-id',
      'future-version',
      'string-version',
      'no-type',
      'entry-first',
      'no-cwd',
      'array',
    ),
  })
  .map(({ change }) => ({
    family: 'bad-header' as const,
    mutate: (lines) => {
      const header = parsedLine(lines[0]);
      if (header === undefined) return;
      const changed: Record<typeof change, () => unknown> = {
        'no-id': () => ({ ...header, id: undefined }),
        'empty-id': () => ({ ...header, id: '' }),
        'numeric-id': () => ({ ...header, id: 42 }),
        'future-version': () => ({ ...header, version: 99 }),
        'string-version': () => ({ ...header, version: '3' }),
        'no-type': () => ({ ...header, type: undefined }),
        'entry-first': () => undefined,
        'no-cwd': () => ({ ...header, cwd: undefined }),
        array: () => [header],
      };
      const value = changed[change]();
      if (value === undefined && lines.length > 1) lines.splice(0, 2, lines[1] ?? '', lines[0] ?? '');
      else if (value !== undefined) lines[0] = jsonText(value) ?? lines[0] ?? '';
    },
  }));

/** Timestamps that are not ISO 8601 date-times with a time zone. */
const badTimestamps = [
  '',
  't',
  'yesterday',
  '2025-12-09',
  '2025-12-09 00:53:29',
  '2025-12-09T00:53:29',
  '2025-13-01T00:00:00.000Z',
  '2025-02-30T00:00:00.000Z',
  '2025-12-09T24:00:00Z',
  '1765241609825',
  'Tue, 09 Dec 2025 00:53:29 GMT',
];

export const badTimestamp: fc.Arbitrary<FamilyMutation> = fc
  .record({ timestamp: fc.constantFrom(...badTimestamps), header: fc.boolean(), where: fraction })
  .map(({ timestamp, header, where }) => ({
    family: 'bad-timestamp' as const,
    mutate: (lines) => {
      if (header) {
        const parsed = parsedLine(lines[0]);
        if (parsed !== undefined) lines[0] = jsonText({ ...parsed, timestamp }) ?? lines[0] ?? '';
        return;
      }
      replaceEntry(lines, where, (entry) => ({ ...entry, timestamp }));
    },
  }));

/** Figures outside the bounds of usage (tokens 0 to 10^9, costs 0 to 10^6). */
const outOfBounds = [1e308, -1e308, -1, -0.5, 1_000_000_001, 1e15];
const usageFigures = [
  'input',
  'output',
  'cacheRead',
  'cacheWrite',
  'totalTokens',
  'cost.total',
  'cost.input',
] as const;

export const usageOutOfBounds: fc.Arbitrary<FamilyMutation> = fc
  .record({
    figure: fc.constantFrom(...usageFigures),
    value: fc.constantFrom(...outOfBounds),
    compaction: fc.boolean(),
    where: fraction,
  })
  .map(({ figure, value, compaction, where }) => ({
    family: 'usage-out-of-bounds' as const,
    mutate: (lines) =>
      replaceEntry(lines, where, (entry) => {
        if (compaction && entry.type === 'compaction') return { ...entry, tokensBefore: value };
        const usage = { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, cost: { total: 0 } };
        const [name, part] = figure.split('.') as [string, string | undefined];
        const figures =
          part === undefined
            ? { ...usage, [name]: value }
            : { ...usage, cost: { ...usage.cost, [part]: value } };
        return {
          ...entry,
          type: 'message',
          message: {
            role: 'assistant',
            content: [{ type: 'text', text: 'Figures out of bounds.' }],
            provider: 'anthropic',
            model: 'claude-sonnet-4-5',
            usage: figures,
            stopReason: 'stop',
            timestamp: 1767225600000,
          },
        };
      }),
  }));
