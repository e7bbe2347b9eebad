// The texts the tokenizer suite counts: the two pi fixtures (read from ../shared/fixtures/pi,
// skipped with a notice when absent), ordinary generated text (prose, code, JSON, mixed scripts),
// and the hostile shapes of issue 11: runs of one character, pseudo-random letters (one long
// piece whose merge windows never repeat, the slowest text per byte), base64 of random bytes, and
// a paragraph of Chinese without punctuation.
import * as fs from 'node:fs';
import { piFixturePath, pseudoRandomLetters } from '@strata/testing';

export interface NamedText {
  readonly name: string;
  readonly text: string;
}

export const fixtureNames = ['before-compaction.jsonl', 'large-session.jsonl'] as const;

/** The fixture's text, or a notice when it is absent (a failure under CI=true). */
export function fixtureText(fileName: string): NamedText | string {
  const filePath = piFixturePath(fileName);
  if (!fs.existsSync(filePath)) {
    const notice = `pi fixture ${filePath} is not present: its cases were skipped`;
    if (process.env.CI === 'true') throw new Error(`${notice} (required under CI=true)`);
    return notice;
  }
  return { name: fileName.replace(/\.jsonl$/, ''), text: fs.readFileSync(filePath, 'utf8') };
}

/** A deterministic stream of numbers in [0, 1) for a seed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

function pick(alphabet: readonly string[], characters: number, seed: number): string {
  const next = random(seed);
  const parts: string[] = [];
  for (let index = 0; index < characters; index += 1)
    parts.push(alphabet[Math.floor(next() * alphabet.length)]!);
  return parts.join('');
}

const codePoints = (first: number, count: number): string[] =>
  Array.from({ length: count }, (_, index) => String.fromCodePoint(first + index));

/** Base64 of `bytes` pseudo-random bytes (one line, as in a data URL or a tool's dump). */
export function base64Blob(bytes: number, seed = 5): string {
  const next = random(seed);
  return Buffer.from(Array.from({ length: bytes }, () => Math.floor(next() * 256))).toString('base64');
}

/** About `bytes` of UTF-8 of one of the hostile shapes. */
export function hostileText(shape: HostileShape, bytes: number): string {
  switch (shape) {
    case 'one-character':
      return 'x'.repeat(bytes);
    case 'random-letters':
      return pseudoRandomLetters(bytes, 7);
    case 'base64':
      return base64Blob(Math.floor((bytes * 3) / 4));
    case 'chinese':
      return pick(codePoints(0x4e00, 3000), Math.floor(bytes / 3), 9);
    default: {
      const unreachable: never = shape;
      throw new Error(`unknown shape ${String(unreachable)}`);
    }
  }
}

export const hostileShapes = ['one-character', 'random-letters', 'base64', 'chinese'] as const;
export type HostileShape = (typeof hostileShapes)[number];

/** Ordinary text of about `characters` characters each: what agents mostly send. */
export function ordinaryTexts(characters: number): NamedText[] {
  const sentence =
    'The engine keeps every entry as an event; compaction summarises what the model no longer needs. ';
  const code =
    'export function estimate(messages: readonly Message[], counter: TokenCounter): number {\n' +
    '  return messages.reduce((total, message) => total + counter.count(message), 0); // sum\n}\n';
  const json = JSON.stringify(
    Array.from({ length: 40 }, (_, index) => ({
      id: `e${index}`,
      parentId: index > 0 ? `e${index - 1}` : null,
      ok: true,
    })),
  );
  const mixed = 'Grüße, 世界! Привет — مرحبا 🙂👍🏽 naïve café 3.14159 2,718\r\n\t';
  const times = (unit: string): string => unit.repeat(Math.ceil(characters / unit.length));
  return [
    { name: 'prose', text: times(sentence) },
    { name: 'code', text: times(code) },
    { name: 'JSON', text: times(json) },
    { name: 'mixed scripts', text: times(mixed) },
  ];
}

/** Alphabets whose random strings make long single pieces, for the deviation measurement. */
export const longPieceAlphabets: Readonly<Record<string, readonly string[]>> = {
  'lower-case letters': codePoints(0x61, 26),
  'two letters': ['a', 'b'],
  'hex digits as letters': [...'abcdef'],
  syllables: ['ab', 'ba', 'abc', 'x', 'xy', 'the', 'ing', 'he', 'in'],
  'upper and lower case': ['A', 'a', 'B', 'b'],
  punctuation: [...'=-*#~_+.'],
  'spaces and tabs': [' ', '\t'],
  Cyrillic: codePoints(0x430, 32),
  Arabic: codePoints(0x627, 28),
  Chinese: codePoints(0x4e00, 400),
  Hiragana: codePoints(0x3041, 80),
  Thai: codePoints(0x0e01, 40),
  'combining marks': ['a', ...codePoints(0x300, 8)],
};

/** `count` random strings of `alphabet`, 12,000–60,000 bytes of UTF-8 each. */
export function longPieces(alphabet: readonly string[], count: number, seed: number): string[] {
  const next = random(seed);
  return Array.from({ length: count }, (_, index) => {
    const unitBytes = Math.max(...alphabet.map((unit) => Buffer.byteLength(unit)));
    const characters = Math.floor((12_000 + next() * 48_000) / unitBytes);
    return pick(alphabet, characters, seed * 1_000 + index);
  });
}
