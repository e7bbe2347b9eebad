// Property tests over generated sessions (@strata/testing): the v3 format round-trips exactly,
// and v1 files (the same sessions with ids stripped) migrate to a stable v3 form.
import * as fc from 'fast-check';
import { generatedSessionArbitrary, type GeneratedSession } from '@strata/testing';
import type { SessionEntry } from '../entries/entries';
import { parseSessionFile } from './parse-session-file';
import { serializeSessionFile } from './serialize-session-file';

/** Structural equality by JSON text (fast, and also checks key order); entries hold JSON data only. */
const json = (value: unknown): string => JSON.stringify(value);

/** The session written as a v1 file: no ids or parents, v1 compactions and model changes. */
function asVersionOne({ header, entries }: GeneratedSession): string {
  const { version: _version, ...v1Header } = header;
  const lines = entries.map((entry) => {
    const { id: _id, parentId: _parentId, ...fields } = entry;
    if (fields.type === 'compaction') {
      const { firstKeptEntryId, ...rest } = fields;
      const firstKeptEntryIndex = entries.findIndex((candidate) => candidate.id === firstKeptEntryId) + 1;
      return { ...rest, firstKeptEntryIndex };
    }
    if (fields.type === 'model_change') {
      const { model = '', role: _role, ...rest } = fields;
      const [provider, ...modelId] = model.split('/');
      return { ...rest, provider, modelId: modelId.join('/') };
    }
    return fields;
  });
  return [v1Header, ...lines].map((line) => `${JSON.stringify(line)}\n`).join('');
}

describe('a generated v3 session', () => {
  it('survives serialise then parse unchanged (key order included), and re-serialises to the same text', () => {
    fc.assert(
      fc.property(generatedSessionArbitrary({ compactions: true }), (session) => {
        const text = serializeSessionFile(session.header, session.entries);
        const parsed = parseSessionFile(text, { mode: 'strict' });
        expect([parsed.sourceVersion, parsed.migrated, parsed.skipped]).toEqual([3, false, []]);
        expect(json(parsed.header)).toBe(json(session.header));
        expect(json(parsed.entries)).toBe(json(session.entries));
        expect(serializeSessionFile(parsed.header, parsed.entries)).toBe(text);
      }),
      { numRuns: 40 },
    );
  });
});

describe('a generated session written as v1', () => {
  it('migrates to a chain of the same entries, and parse, serialise, parse is stable', () => {
    fc.assert(
      fc.property(generatedSessionArbitrary({ compactions: true, branching: false }), (session) => {
        const first = parseSessionFile(asVersionOne(session), { mode: 'strict' });
        const ids = first.entries.map((entry) => entry.id);
        expect(first.sourceVersion).toBe(1);
        expect(first.entries.map((entry) => entry.type)).toEqual(session.entries.map((entry) => entry.type));
        expect(first.entries.map((entry) => entry.parentId)).toEqual([null, ...ids.slice(0, -1)]);
        expect(new Set(ids).size).toBe(ids.length);

        const renamed = new Map(session.entries.map((entry, index) => [entry.id, ids[index]]));
        const cuts = (entries: readonly SessionEntry[], rename: (id: string) => string | undefined) =>
          entries.flatMap((entry) => (entry.type === 'compaction' ? [rename(entry.firstKeptEntryId)] : []));
        expect(cuts(first.entries, (id) => id)).toEqual(cuts(session.entries, (id) => renamed.get(id)));

        const text = serializeSessionFile(first.header, first.entries);
        const second = parseSessionFile(text, { mode: 'strict' });
        expect(json(second.entries)).toBe(json(first.entries));
        expect(json(second.header)).toBe(json(first.header));
        expect(serializeSessionFile(second.header, second.entries)).toBe(text);
      }),
      { numRuns: 40 },
    );
  });
});
