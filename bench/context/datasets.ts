// The sessions the context suite runs on: the two real pi files (read from
// ../shared/fixtures/pi, never copied; skipped with a notice when absent) and generated sessions
// of 1,000 to 100,000 entries, each held as a live session would be (entries, id index, leaf).
import * as fs from 'node:fs';
import { parseSessionFile, serializeSessionFile, type SessionEntry } from '@strata/session';
import { piFixturePath } from '@strata/testing';
import { measureRetainedHeap } from '../harness';
import { generateSession } from './generate-session';

export interface DatasetSource {
  readonly name: string;
  readonly kind: 'fixture' | 'generated';
  /** The JSONL text, read or generated on demand. */
  load(): {
    text: string;
    generation?: { compactionCount: number; branchCount: number; milliseconds: number };
  };
}

export interface HeldSession {
  readonly name: string;
  readonly kind: 'fixture' | 'generated';
  readonly text: string;
  readonly megabytes: number;
  readonly entries: readonly SessionEntry[];
  readonly byId: ReadonlyMap<string, SessionEntry>;
  /** The reference's default leaf: the last entry in file order. */
  readonly leafId: string;
  readonly facts: Record<string, unknown>;
}

export const fixtureNames = ['before-compaction.jsonl', 'large-session.jsonl'] as const;

export function fixtureSource(fileName: string): DatasetSource | string {
  const filePath = piFixturePath(fileName);
  if (!fs.existsSync(filePath)) {
    const notice = `pi fixture ${filePath} is not present: its cases were skipped`;
    if (process.env.CI === 'true') throw new Error(`${notice} (required under CI=true)`);
    return notice;
  }
  return {
    name: fileName.replace(/\.jsonl$/, ''),
    kind: 'fixture',
    load: () => ({ text: fs.readFileSync(filePath, 'utf8') }),
  };
}

export function generatedSource(entryCount: number): DatasetSource {
  return {
    name: `generated-${entryCount >= 1000 ? `${entryCount / 1000}k` : entryCount}`,
    kind: 'generated',
    load: () => {
      const started = process.hrtime.bigint();
      const session = generateSession({ entryCount });
      const text = serializeSessionFile(session.header, session.entries);
      return {
        text,
        generation: {
          compactionCount: session.compactionCount,
          branchCount: session.branchCount,
          milliseconds: Math.round(Number(process.hrtime.bigint() - started) / 1e6),
        },
      };
    },
  };
}

function countByType(entries: readonly SessionEntry[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const entry of entries) counts[entry.type] = (counts[entry.type] ?? 0) + 1;
  return counts;
}

/**
 * Loads a data set and holds it as a live session: entries parsed strictly from the file text,
 * and an id index. Records the heap the parsed entries and the index keep alive.
 */
export function holdSession(source: DatasetSource): HeldSession {
  const { text, generation } = source.load();
  let loadParseMs = 0;
  const parsed = measureRetainedHeap(() => {
    const started = process.hrtime.bigint();
    const parsedEntries = parseSessionFile(text, { mode: 'strict' }).entries;
    loadParseMs = Number(process.hrtime.bigint() - started) / 1e6;
    return parsedEntries;
  });
  const entries = parsed.value;
  const index = measureRetainedHeap(() => {
    const byId = new Map<string, SessionEntry>();
    for (const entry of entries) byId.set(entry.id, entry);
    return byId;
  });
  const last = entries[entries.length - 1];
  if (last === undefined) throw new Error(`data set ${source.name} has no entries`);
  const megabytes = Buffer.byteLength(text, 'utf8') / 1e6;
  return {
    name: source.name,
    kind: source.kind,
    text,
    megabytes,
    entries,
    byId: index.value,
    leafId: last.id,
    facts: {
      kind: source.kind,
      entries: entries.length,
      megabytes: Math.round(megabytes * 100) / 100,
      /** One strict parse (while loading), outside the timed groups. */
      loadParseMs: Math.round(loadParseMs),
      entriesByType: countByType(entries),
      retainedHeapBytes: {
        parsedEntries: parsed.retainedBytes,
        idIndex: index.retainedBytes,
        perEntry:
          parsed.retainedBytes === null || index.retainedBytes === null
            ? null
            : Math.round((parsed.retainedBytes + index.retainedBytes) / entries.length),
      },
      ...(generation !== undefined ? { generation } : {}),
    },
  };
}
