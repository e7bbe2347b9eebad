// Reading a pi file as it is written (PiSessionLineReader): any split of its lines into batches
// gives the entries a whole-file parse gives, v1 fixtures (ids made up by migration) and v3
// files alike; a bad line is named and spends the reader.
import fc from 'fast-check';
import { describeWithFixture, readPiFixture, session } from '@strata/testing';
import { splitOriginalLines } from './transcripts';
import { parseSessionFile, PiSessionLineReader } from './parse-session-file';
import { serializeSessionFile } from './serialize-session-file';
import { SessionFileError } from './session-file-error';

function readInBatches(text: string, cuts: readonly number[]) {
  const lines = splitOriginalLines(text);
  const reader = new PiSessionLineReader();
  const entries = [];
  let start = 0;
  for (const cut of [...cuts.map((value) => value % (lines.length + 1))].sort((a, b) => a - b)) {
    entries.push(...reader.convert(lines.slice(start, Math.max(start, cut))));
    start = Math.max(start, cut);
  }
  entries.push(...reader.convert(lines.slice(start)));
  return { reader, entries };
}

describe('reading a pi file line by line', () => {
  const builder = session({ sessionId: 'lines-1' })
    .user('Where is the config read?')
    .assistantToolCalls([{ name: 'read', arguments: { path: 'config.ts' } }])
    .toolResult('read', 'export const config = {};')
    .assistant('In config.ts.');
  const text = `${serializeSessionFile(builder.header, builder.entries)}\n`;

  it('gives the entries of a whole-file parse, whatever the batches (blank lines included)', () => {
    const whole = parseSessionFile(text, { mode: 'strict' });
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 6 }), (cuts) => {
        const { reader, entries } = readInBatches(text, cuts);
        expect(reader.header).toEqual(whole.header);
        expect(entries).toEqual(whole.entries);
        expect(reader.linesRead).toBe(splitOriginalLines(text).length);
      }),
    );
  });

  it('names a bad line and refuses every later batch', () => {
    const reader = new PiSessionLineReader();
    const lines = splitOriginalLines(text);
    reader.convert(lines.slice(0, 2));
    expect(() => reader.convert(['{"type":"message",\n'])).toThrow(SessionFileError);
    expect(() => reader.convert(lines.slice(2))).toThrow(/line 3/);
  });

  it('refuses a first line that is not a session header', () => {
    expect(() => new PiSessionLineReader().convert(splitOriginalLines(text).slice(1))).toThrow(
      SessionFileError,
    );
  });
});

describeWithFixture('before-compaction.jsonl', 'reading the v1 fixture line by line', () => {
  it('makes up the same ids and parents as the whole-file migration', () => {
    const text = readPiFixture('before-compaction.jsonl');
    const whole = parseSessionFile(text, { mode: 'strict' });
    const { entries } = readInBatches(text, [1, 7, 300, 551, 552, 900]);
    expect(entries).toEqual(whole.entries);
  });
});
