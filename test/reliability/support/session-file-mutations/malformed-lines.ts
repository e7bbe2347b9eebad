// Hostile session files, malformed lines: bytes that are not UTF-8, a line cut short, random
// JSON or random text as a line, prototype keys (`__proto__`, `constructor`) written into an
// entry's text, and escapes JSON allows but a reader may not expect (lone surrogates, NUL,
// U+2028, a byte-order mark).
import fc from 'fast-check';
import type { FamilyMutation } from './family-mutation';
import { entryIndex, fraction, insertAt, jsonText, parsedLine } from './file-lines';

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

export const invalidUtf8: fc.Arbitrary<FamilyMutation> = fc
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

export const truncatedLine: fc.Arbitrary<FamilyMutation> = fc
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

export const randomJson: fc.Arbitrary<FamilyMutation> = fc
  .record({ value: fc.jsonValue({ maxDepth: 4 }), where: fraction, replace: fc.boolean() })
  .map(({ value, where, replace }) => ({
    family: 'random-json' as const,
    mutate: (lines) => {
      const text = JSON.stringify(value);
      if (replace) lines[entryIndex(lines, where)] = text;
      else insertAt(lines, where, text);
    },
  }));

export const randomText: fc.Arbitrary<FamilyMutation> = fc
  .record({ text: fc.string({ unit: 'binary', minLength: 1, maxLength: 80 }), where: fraction })
  .map(({ text, where }) => ({
    family: 'random-text' as const,
    mutate: (lines) => insertAt(lines, where, text),
  }));

export const prototypeKeys: fc.Arbitrary<FamilyMutation> = fc
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

export const escapedOddities: fc.Arbitrary<FamilyMutation> = fc
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
