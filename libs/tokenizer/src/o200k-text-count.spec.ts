import { describeWithFixture, readPiFixture } from '@strata/testing';
import fc from 'fast-check';
import { Tiktoken } from 'js-tiktoken/lite';
import o200kBase from 'js-tiktoken/ranks/o200k_base';
import { BytePairMerger, type MergeMeter } from './byte-pair-merge';
import { o200kVocabulary } from './o200k-vocabulary';
import {
  MERGE_WINDOW_BYTES,
  O200kTextCount,
  WINDOW_LOOKAHEAD_BYTES,
  countO200kTokens,
} from './o200k-text-count';

/** js-tiktoken's encoder: exact o200k, and quadratic on long pieces, so only for short ones. */
const exactEncoder = new Tiktoken(o200kBase);
const exactO200k = (text: string): number => exactEncoder.encode(text, [], []).length;

/** Every piece merged whole by one merger big enough for it: exact o200k, as the next block shows. */
const wholeMerger = new BytePairMerger(o200kVocabulary(), 65_000);
function wholePieceO200k(text: string): number {
  let tokens = 0;
  for (const match of text.matchAll(new RegExp(o200kVocabulary().pattern, 'gu'))) {
    const bytes = Buffer.from(match[0], 'utf8').toString('latin1');
    tokens += wholeMerger.count(bytes, 0, bytes.length);
  }
  return tokens;
}

function stepsOf(text: string): number {
  const meter: MergeMeter = { steps: 0 };
  countO200kTokens(text, meter);
  return meter.steps;
}

const codePoints = (first: number, count: number): string[] =>
  Array.from({ length: count }, (_, index) => String.fromCodePoint(first + index));

/** Alphabets whose random strings make long single pieces (letters, punctuation, spaces). */
const longPieceAlphabets: Readonly<Record<string, readonly string[]>> = {
  'lower-case letters': codePoints(0x61, 26),
  'two letters': ['a', 'b'],
  syllables: ['ab', 'ba', 'abc', 'x', 'xy', 'the', 'ing'],
  punctuation: [...'=-*#~_+.'],
  'spaces and tabs': [' ', '\t'],
  Cyrillic: codePoints(0x430, 32),
  Chinese: codePoints(0x4e00, 400),
  Thai: codePoints(0x0e01, 40),
  'combining marks': ['a', ...codePoints(0x300, 8)],
};

describe('the o200k count against js-tiktoken (exact o200k_base)', () => {
  it.each([
    ['prose', 'The quick brown fox jumps over the lazy dog. It was not amused; neither was I.\n'.repeat(40)],
    ['code', 'export function add(a: number, b: number): number {\n  return a + b; // sum\n}\n'.repeat(40)],
    [
      'JSON',
      JSON.stringify(
        Array.from({ length: 60 }, (_, index) => ({
          id: `e${index}`,
          ok: index % 3 === 0,
          score: index * 1.5,
        })),
        null,
        2,
      ),
    ],
    ['mixed scripts and emoji', 'Grüße, 世界! Привет — مرحبا 🙂👍🏽 naïve café\r\n\t'.repeat(30)],
    ['numbers', '3.14159 2718281828 1,000,000 0x1F 42nd\n'.repeat(40)],
    ['special-token markers', 'before <|endoftext|> after <|endofprompt|>'],
    ['lone surrogates', 'a\ud800b\udfffc'],
    ['empty', ''],
  ])('counts %s exactly', (_name, text) => {
    expect(countO200kTokens(text)).toBe(exactO200k(text));
  });

  it('counts random text of mixed characters exactly (fast-check, 300 cases)', () => {
    const character = fc.constantFrom(
      ...'aAbBzZ09 _-=.,;:!?\'"()[]{}<>/\\\n\r\t€éß世界🙂\u0301'.split(''),
      ...codePoints(0x4e00, 5),
    );
    fc.assert(
      fc.property(fc.array(character, { maxLength: 300 }), (characters) => {
        const text = characters.join('');
        expect(countO200kTokens(text)).toBe(exactO200k(text));
      }),
      { numRuns: 300, seed: 11 },
    );
  });

  it('merges whole pieces of 1,200 characters exactly (the reference for longer ones below)', () => {
    for (const [name, alphabet] of Object.entries(longPieceAlphabets)) {
      const text = fc
        .sample(fc.array(fc.constantFrom(...alphabet), { minLength: 1200, maxLength: 1200 }), {
          numRuns: 1,
          seed: name.length,
        })[0]!
        .join('');
      expect({ name, tokens: wholePieceO200k(text) }).toEqual({ name, tokens: exactO200k(text) });
    }
  });
});

describeWithFixture('before-compaction.jsonl', 'the before-compaction fixture', () => {
  it('counts exactly as js-tiktoken (743,114 tokens)', () => {
    const text = readPiFixture('before-compaction.jsonl');
    expect(countO200kTokens(text)).toBe(exactO200k(text));
  });
});

describeWithFixture('large-session.jsonl', 'the large-session fixture', () => {
  it('counts exactly as js-tiktoken (308,305 tokens)', () => {
    const text = readPiFixture('large-session.jsonl');
    expect(countO200kTokens(text)).toBe(exactO200k(text));
  });
});

describe('pieces longer than one merge window', () => {
  const windowBytes = MERGE_WINDOW_BYTES + WINDOW_LOOKAHEAD_BYTES;

  it.each([
    ['x', 40_000],
    ['=', 40_000],
    [' ', 40_000],
    ['中', 15_000],
    ['hello', 8_000],
  ])('counts a run of %j ×%i as the whole-piece merge does', (unit, times) => {
    const text = unit.repeat(times);
    expect(Buffer.byteLength(text)).toBeGreaterThan(3 * windowBytes);
    expect(countO200kTokens(text)).toBe(wholePieceO200k(text));
  });

  it('counts random long pieces of nine alphabets as the whole-piece merge does (90 cases)', () => {
    let cases = 0;
    for (const [name, alphabet] of Object.entries(longPieceAlphabets)) {
      const texts = fc.sample(
        fc.array(fc.constantFrom(...alphabet), { minLength: 12_000, maxLength: 20_000 }),
        {
          numRuns: 10,
          seed: 4,
        },
      );
      for (const characters of texts) {
        const text = characters.join('');
        expect({ name, tokens: countO200kTokens(text) }).toEqual({ name, tokens: wholePieceO200k(text) });
        cases += 1;
      }
    }
    expect(cases).toBe(90);
  });
});

describe('the work of counting a long piece', () => {
  const randomLetters = (length: number): string =>
    fc
      .sample(fc.array(fc.constantFrom(...codePoints(0x61, 26)), { minLength: length, maxLength: length }), {
        numRuns: 1,
        seed: length,
      })[0]!
      .join('');

  it('grows in proportion to the length of a run of one character (steps at 256 KiB and 1 MiB: ×4)', () => {
    const ratio = stepsOf('x'.repeat(1024 * 1024)) / stepsOf('x'.repeat(256 * 1024));
    expect(ratio).toBeGreaterThan(3.5);
    expect(ratio).toBeLessThan(4.1);
  });

  it('grows in proportion to the length of random letters, where no window repeats (×4)', () => {
    const ratio = stepsOf(randomLetters(256 * 1024)) / stepsOf(randomLetters(64 * 1024));
    expect(ratio).toBeGreaterThan(3.9);
    expect(ratio).toBeLessThan(4.1);
  });

  it('takes a bounded number of steps per byte, from 1 KiB to 256 KiB, for every kind of run', () => {
    for (const unit of ['x', '=', ' ', 'ab', '中']) {
      for (const bytes of [1024, 16 * 1024, 256 * 1024]) {
        const text = unit.repeat(Math.ceil(bytes / Buffer.byteLength(unit)));
        expect({ unit, bytes, perByte: stepsOf(text) / Buffer.byteLength(text) < 8 }).toEqual({
          unit,
          bytes,
          perByte: true,
        });
      }
    }
  });
});

describe('the pattern run over segments cut inside runs of letters or punctuation', () => {
  const countWithSegments = (text: string, segmentCharacters: number): number => {
    const count = new O200kTextCount(text, undefined, segmentCharacters);
    count.advance(() => false);
    return count.tokens;
  };

  it('counts random runs exactly with segments of 1 to 12 characters (fast-check, 1,000 cases)', () => {
    const caseless = fc.constantFrom(
      '\u0301',
      '\u0e01',
      '\u0e31',
      '\u3042',
      '\u02b0',
      '\u{20000}',
      ...codePoints(0x4e00, 4),
    );
    const lower = fc.constantFrom(...[...'abxyzß']);
    const upper = fc.constantFrom(...[...'ABXYZΣ']);
    const punctuation = fc.constantFrom(...[...'=-!/.\'"#*—'], '\n/');
    const other = fc.constantFrom(...[...'09 \n\r\t'], "'s", "'ll", "'RE", 'ǅ', '😀');
    const run = fc.oneof(
      ...[caseless, lower, upper, punctuation, other].map((group) =>
        fc.array(group, { minLength: 1, maxLength: 6 }).map((characters) => characters.join('')),
      ),
    );
    const CUTTABLE =
      /[\p{Lo}\p{Lm}\p{M}][\p{Lo}\p{Lm}][\p{Lo}\p{Lm}\p{M}]|\p{Ll}{3}|\p{Lu}{3}|[^\s\p{L}\p{N}\p{M}/]{4}/u;
    let casesWithCuts = 0;
    fc.assert(
      fc.property(
        fc.array(run, { minLength: 10, maxLength: 60 }),
        fc.integer({ min: 1, max: 12 }),
        (runs, segment) => {
          const text = runs.join('');
          expect(countWithSegments(text, segment)).toBe(exactO200k(text));
          if (CUTTABLE.test(text.slice(4))) casesWithCuts += 1;
        },
      ),
      { numRuns: 1000, seed: 12 },
    );
    expect(casesWithCuts).toBeGreaterThan(900);
  });

  it.each([
    ['a mark after punctuation', 'aa==AAA\u0301\u0301\u0301======\u0e31\u0e01\u0301\u0301A\u0301'],
    ['marks ending a punctuation piece', '==\u0301\u0e31\u0e01\u0301=a'],
    ["a contraction ('ll, 'RE) before letters", "'ll'REAΣ=\u03010"],
    ['a tail of slashes after punctuation', '==\n\n//*=A=A\u0301A'],
  ])('counts %s exactly when cut every character or so', (_name, text) => {
    for (const segmentCharacters of [1, 2, 3, 5]) {
      expect({ segmentCharacters, tokens: countWithSegments(text, segmentCharacters) }).toEqual({
        segmentCharacters,
        tokens: exactO200k(text),
      });
    }
  });

  it('counts 2 MB of Chinese without punctuation as one piece, pausing all along', () => {
    const text = fc
      .sample(
        fc.array(fc.constantFrom(...codePoints(0x4e00, 2000)), { minLength: 700_000, maxLength: 700_000 }),
        {
          numRuns: 1,
          seed: 3,
        },
      )[0]!
      .join('');
    const stepwise = new O200kTextCount(text);
    let pauses = 0;
    while (!stepwise.advance(() => true)) pauses += 1;
    expect(stepwise.tokens).toBe(countWithSegments(text, Number.MAX_SAFE_INTEGER));
    expect(pauses).toBeGreaterThan(200);
  });
});

describe('a count in steps', () => {
  it('pauses when asked and resumes to the same total as a count at once', () => {
    const text = `${'word '.repeat(5000)}${'y'.repeat(50_000)}${' tail'.repeat(100)}`;
    const stepwise = new O200kTextCount(text);
    let pauses = 0;
    while (!stepwise.advance(() => true)) pauses += 1;
    expect(pauses).toBeGreaterThan(10);
    expect(stepwise.done).toBe(true);
    expect(stepwise.tokens).toBe(countO200kTokens(text));
  });
});
