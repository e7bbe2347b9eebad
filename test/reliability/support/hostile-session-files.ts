// Generators of hostile pi session files for the fuzz tests: a small valid session (header and
// a few entries from @strata/testing's generator) with one to three damaging mutations, each
// from a named family, so a run can report how many cases of each family it tried. Lines are
// kept as strings or raw bytes (invalid UTF-8 only exists as bytes).
import fc from 'fast-check';
import { sessionEntryTypes, type SessionEntry, type SessionHeader } from '@strata/session';
import { generatedSessionArbitrary } from '@strata/testing';

export const hostileFamilies = [
  'huge-payload',
  'deep-nesting',
  'wrong-type',
  'invalid-utf8',
  'unknown-type',
  'parent-cycle',
  'duplicate-id',
  'truncated-line',
  'random-json',
  'random-text',
  'bad-header',
  'prototype-keys',
  'escaped-oddities',
  'unaddressable-id',
  'bad-timestamp',
  'usage-out-of-bounds',
  'stray-first-kept',
] as const;

export type HostileFamily = (typeof hostileFamilies)[number];

/** One line of a file, without its newline. */
export type FileLine = string | Uint8Array;

export interface HostileSessionFile {
  /** The header first, then one line per entry (before mutation). */
  readonly lines: readonly FileLine[];
  /** The families of the mutations applied, in order. */
  readonly families: readonly HostileFamily[];
}

type JsonRecord = Record<string, unknown>;

/** A mutation of the file's lines (already JSON objects where they parse). */
type Mutation = (lines: FileLine[]) => void;

interface FamilyMutation {
  readonly family: HostileFamily;
  readonly mutate: Mutation;
}

const HUGE_MIN = 200_000;
const HUGE_MAX = 2_000_000;
const knownTypes = new Set<string>([...sessionEntryTypes, 'session']);

function parsedLine(line: FileLine | undefined): JsonRecord | undefined {
  if (typeof line !== 'string') return undefined;
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as JsonRecord)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Index in `lines` (1 … length) of an entry line, from a fraction in [0, 1). */
function entryIndex(lines: readonly FileLine[], fraction: number): number {
  const entries = Math.max(1, lines.length - 1);
  return 1 + Math.min(entries - 1, Math.floor(fraction * entries));
}

function insertAt(lines: FileLine[], fraction: number, line: FileLine): void {
  lines.splice(1 + Math.floor(fraction * lines.length), 0, line);
}

/** JSON text, or undefined when an earlier mutation nested the value too deep to write. */
function jsonText(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

function replaceEntry(lines: FileLine[], fraction: number, change: (entry: JsonRecord) => unknown): void {
  const index = entryIndex(lines, fraction);
  const entry = parsedLine(lines[index]);
  if (entry === undefined) return;
  lines[index] = jsonText(change(entry)) ?? lines[index] ?? '';
}

function nested(depth: number, asObject: boolean): string {
  return asObject ? '{"n":'.repeat(depth) + '0' + '}'.repeat(depth) : '['.repeat(depth) + ']'.repeat(depth);
}

// Integers spread positions evenly (a generated double clusters near 0 and 1).
const fraction = fc.integer({ min: 0, max: 9_999 }).map((value) => value / 10_000);

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

const hugePayload: fc.Arbitrary<FamilyMutation> = fc
  .noShrink(
    fc.record({ size: fc.integer({ min: HUGE_MIN, max: HUGE_MAX }), where: fraction, wide: fc.boolean() }),
  )
  .map(({ size, where, wide }) => ({
    family: 'huge-payload' as const,
    mutate: (lines) =>
      replaceEntry(lines, where, (entry) => ({
        ...entry,
        type: 'custom',
        customType: 'fuzz/huge',
        data: wide ? Array.from({ length: Math.floor(size / 16) }, (_, index) => index) : 'x'.repeat(size),
      })),
  }));

const deepNesting: fc.Arbitrary<FamilyMutation> = fc
  .record({
    depth: fc.oneof(fc.integer({ min: 100, max: 3_000 }), fc.integer({ min: 3_000, max: 30_000 })),
    asObject: fc.boolean(),
    bare: fc.boolean(),
    where: fraction,
  })
  .map(({ depth, asObject, bare, where }) => ({
    family: 'deep-nesting' as const,
    mutate: (lines) => {
      if (bare) {
        insertAt(lines, where, nested(depth, asObject));
        return;
      }
      const index = entryIndex(lines, where);
      const entry = parsedLine(lines[index]);
      if (entry === undefined) return;
      const { data: _data, ...rest } = entry;
      const prefix = jsonText({ ...rest, type: 'custom', customType: 'fuzz/deep' })?.slice(0, -1);
      if (prefix === undefined) return;
      lines[index] = `${prefix},"data":${nested(depth, asObject)}}`;
    },
  }));

const wrongType: fc.Arbitrary<FamilyMutation> = fc
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

/** Byte sequences that are not UTF-8: stray continuation, lone lead, surrogate, overlong, cut 4-byte. */
const invalidSequences: readonly (readonly number[])[] = [
  [0xff],
  [0xfe],
  [0x80],
  [0xc3],
  [0xed, 0xa0, 0x80],
  [0xc0, 0xaf],
  [0xf0, 0x9f, 0x98],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
];

const invalidUtf8: fc.Arbitrary<FamilyMutation> = fc
  .record({
    sequence: fc.constantFrom(...invalidSequences),
    where: fraction,
    offset: fraction,
    header: fc.boolean(),
  })
  .map(({ sequence, where, offset, header }) => ({
    family: 'invalid-utf8' as const,
    mutate: (lines) => {
      const index = header ? 0 : entryIndex(lines, where);
      const line = lines[index];
      if (line === undefined) return;
      const bytes = typeof line === 'string' ? Buffer.from(line, 'utf8') : Buffer.from(line);
      const at = Math.floor(offset * bytes.length);
      lines[index] = Buffer.concat([bytes.subarray(0, at), Buffer.from(sequence), bytes.subarray(at)]);
    },
  }));

const unknownType: fc.Arbitrary<FamilyMutation> = fc
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

const parentCycle: fc.Arbitrary<FamilyMutation> = fc
  .record({ from: fraction, to: fraction, pair: fc.boolean() })
  .map(({ from, to, pair }) => ({
    family: 'parent-cycle' as const,
    mutate: (lines) => {
      const first = entryIndex(lines, Math.min(from, to));
      const second = entryIndex(lines, Math.max(from, to));
      const early = parsedLine(lines[first]);
      const late = parsedLine(lines[second]);
      if (early === undefined || late === undefined) return;
      if (!pair || first === second) {
        lines[second] = jsonText({ ...late, parentId: late.id }) ?? lines[second] ?? '';
        return;
      }
      lines[first] = jsonText({ ...early, parentId: late.id }) ?? lines[first] ?? '';
    },
  }));

const duplicateId: fc.Arbitrary<FamilyMutation> = fc
  .record({ source: fraction, target: fraction })
  .map(({ source, target }) => ({
    family: 'duplicate-id' as const,
    mutate: (lines) => {
      const from = parsedLine(lines[entryIndex(lines, source)]);
      if (from === undefined) return;
      const index = entryIndex(lines, target);
      const into = parsedLine(lines[index]);
      if (into === undefined) return;
      const changed = jsonText({ ...into, id: from.id });
      if (changed === undefined) return;
      lines[index] = changed;
      if (index === entryIndex(lines, source)) lines.splice(index, 0, jsonText(from) ?? '');
    },
  }));

const truncatedLine: fc.Arbitrary<FamilyMutation> = fc
  .record({ where: fraction, cut: fraction, header: fc.boolean() })
  .map(({ where, cut, header }) => ({
    family: 'truncated-line' as const,
    mutate: (lines) => {
      const index = header ? 0 : entryIndex(lines, where);
      const line = lines[index];
      if (typeof line !== 'string' || line.length < 2) return;
      lines[index] = line.slice(0, 1 + Math.floor(cut * (line.length - 1)));
    },
  }));

const randomJson: fc.Arbitrary<FamilyMutation> = fc
  .record({ value: fc.jsonValue({ maxDepth: 4 }), where: fraction, replace: fc.boolean() })
  .map(({ value, where, replace }) => ({
    family: 'random-json' as const,
    mutate: (lines) => {
      const text = JSON.stringify(value);
      if (replace) lines[entryIndex(lines, where)] = text;
      else insertAt(lines, where, text);
    },
  }));

const randomText: fc.Arbitrary<FamilyMutation> = fc
  .record({ text: fc.string({ unit: 'binary', minLength: 1, maxLength: 80 }), where: fraction })
  .map(({ text, where }) => ({
    family: 'random-text' as const,
    mutate: (lines) => insertAt(lines, where, text),
  }));

const badHeader: fc.Arbitrary<FamilyMutation> = fc
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

const prototypeKeys: fc.Arbitrary<FamilyMutation> = fc
  .record({
    key: fc.constantFrom('__proto__', 'constructor', 'prototype'),
    where: fraction,
    nestedIn: fc.boolean(),
  })
  .map(({ key, where, nestedIn }) => ({
    family: 'prototype-keys' as const,
    mutate: (lines) => {
      const index = entryIndex(lines, where);
      const line = lines[index];
      if (typeof line !== 'string' || !line.endsWith('}')) return;
      const member = `"${key}":{"polluted":"yes","toString":"no"}`;
      lines[index] = nestedIn
        ? `${line.slice(0, -1)},"data":{${member}}}`
        : `${line.slice(0, -1)},${member}}`;
    },
  }));

const escapedOddities: fc.Arbitrary<FamilyMutation> = fc
  .record({
    text: fc.constantFrom('\\ud800', '\\udfff\\ud800', '\\u0000', '\\u2028\\u2029', '\\ufeff', '\\r'),
    where: fraction,
    bom: fc.boolean(),
  })
  .map(({ text, where, bom }) => ({
    family: 'escaped-oddities' as const,
    mutate: (lines) => {
      if (bom && typeof lines[0] === 'string') {
        lines[0] = `\ufeff${lines[0]}`;
        return;
      }
      const index = entryIndex(lines, where);
      const entry = parsedLine(lines[index]);
      if (entry === undefined) return;
      const prefix = jsonText({ ...entry, type: 'custom', customType: 'fuzz/escapes' })?.slice(0, -1);
      if (prefix === undefined) return;
      lines[index] = `${prefix},"data":"a${text}b"}`;
    },
  }));

/** Ids no per-session endpoint could address again (issue 11, finding 6). */
const unaddressableIds = [
  '',
  'a\nb',
  'a\tb',
  'a\u0000b',
  'a\rb',
  'a\u0085b',
  'a\u2028b',
  '\ud800',
  'a\udc00',
  '.',
  '..',
  'x'.repeat(513),
  'y'.repeat(100_000),
];
const idFields = ['id', 'parentId', 'targetId', 'firstKeptEntryId', 'fromId'] as const;

const unaddressableId: fc.Arbitrary<FamilyMutation> = fc
  .record({
    id: fc.constantFrom(...unaddressableIds),
    field: fc.constantFrom(...idFields),
    header: fc.boolean(),
    where: fraction,
  })
  .map(({ id, field, header, where }) => ({
    family: 'unaddressable-id' as const,
    mutate: (lines) => {
      if (header) {
        const parsed = parsedLine(lines[0]);
        if (parsed !== undefined) lines[0] = jsonText({ ...parsed, id }) ?? lines[0] ?? '';
        return;
      }
      replaceEntry(lines, where, (entry) =>
        field in entry || field === 'id' ? { ...entry, [field]: id } : { ...entry, id },
      );
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

const badTimestamp: fc.Arbitrary<FamilyMutation> = fc
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

const usageOutOfBounds: fc.Arbitrary<FamilyMutation> = fc
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

/** A compaction that keeps from an entry off its path: unknown, later, or on another branch. */
const strayFirstKept: fc.Arbitrary<FamilyMutation> = fc
  .record({ where: fraction, keep: fc.constantFrom('unknown', 'itself', 'later'), other: fraction })
  .map(({ where, keep, other }) => ({
    family: 'stray-first-kept' as const,
    mutate: (lines) => {
      const index = entryIndex(lines, where);
      const later = parsedLine(
        lines[Math.min(lines.length - 1, index + 1 + Math.floor(other * (lines.length - index)))],
      );
      replaceEntry(lines, where, (entry) => {
        const firstKeptEntryId =
          keep === 'unknown'
            ? 'no-such-entry'
            : keep === 'itself' || later === undefined
              ? entry.id
              : later.id;
        return {
          type: 'compaction',
          id: entry.id,
          parentId: entry.parentId,
          timestamp: entry.timestamp,
          summary: 'A summary that keeps from elsewhere.',
          firstKeptEntryId,
          tokensBefore: 1000,
        };
      });
    },
  }));

const familyArbitraries: Readonly<Record<HostileFamily, fc.Arbitrary<FamilyMutation>>> = {
  'huge-payload': hugePayload,
  'deep-nesting': deepNesting,
  'wrong-type': wrongType,
  'invalid-utf8': invalidUtf8,
  'unknown-type': unknownType,
  'parent-cycle': parentCycle,
  'duplicate-id': duplicateId,
  'truncated-line': truncatedLine,
  'random-json': randomJson,
  'random-text': randomText,
  'bad-header': badHeader,
  'prototype-keys': prototypeKeys,
  'escaped-oddities': escapedOddities,
  'unaddressable-id': unaddressableId,
  'bad-timestamp': badTimestamp,
  'usage-out-of-bounds': usageOutOfBounds,
  'stray-first-kept': strayFirstKept,
};

export interface HostileFileOptions {
  /** Families to draw from; every family by default. */
  readonly families?: readonly HostileFamily[];
  /** Leave the huge payloads out (for loops that must stay fast). */
  readonly withoutHuge?: boolean;
}

function serializedLines(header: SessionHeader, entries: readonly SessionEntry[]): FileLine[] {
  return [JSON.stringify(header), ...entries.map((entry) => JSON.stringify(entry))];
}

/** A small valid session with one to three hostile mutations. */
export function hostileSessionFileArbitrary(
  options: HostileFileOptions = {},
): fc.Arbitrary<HostileSessionFile> {
  const families = (options.families ?? hostileFamilies).filter(
    (family) => !(options.withoutHuge === true && family === 'huge-payload'),
  );
  const mutation = fc.oneof(
    ...families.map((family) => ({
      arbitrary: familyArbitraries[family],
      weight: family === 'huge-payload' ? 1 : 3,
    })),
  );
  return fc
    .record({
      session: generatedSessionArbitrary({ maxEntries: 10, maxSteps: 3, images: false }),
      sessionId: fc.uuid(),
      mutations: fc.array(mutation, { minLength: 1, maxLength: 3 }),
    })
    .map(({ session, sessionId, mutations }) => {
      const lines = serializedLines({ ...session.header, id: sessionId }, session.entries);
      for (const { mutate } of mutations) mutate(lines);
      return { lines, families: mutations.map(({ family }) => family) };
    });
}

/** The file as bytes, each line ending in a newline. */
export function fileBytes(file: HostileSessionFile): Buffer {
  return Buffer.concat(
    file.lines.flatMap((line) => [
      typeof line === 'string' ? Buffer.from(line, 'utf8') : line,
      Buffer.from('\n'),
    ]),
  );
}

/** Whether any line is not valid UTF-8. */
export function hasInvalidUtf8(file: HostileSessionFile): boolean {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  return file.lines.some((line) => {
    if (typeof line === 'string') return false;
    try {
      decoder.decode(line);
      return false;
    } catch {
      return true;
    }
  });
}

/** The file as text (invalid UTF-8 decoded the lossy way, as `readFileSync(…, 'utf8')` does). */
export function fileText(file: HostileSessionFile): string {
  return fileBytes(file).toString('utf8');
}
