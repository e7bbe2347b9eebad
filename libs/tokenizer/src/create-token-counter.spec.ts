import { charsPerFourCounter } from '@strata/session';
import { createTokenCounter, isTokenCounterName } from './create-token-counter';
import { countO200kTokens, IMAGE_TOKEN_COST, o200kTokenCounter } from './o200k-token-counter';

describe('the o200k token counter', () => {
  it('counts short English text as the o200k_base encoding does', () => {
    expect(countO200kTokens('hello world')).toBe(2);
    expect(countO200kTokens('')).toBe(0);
  });

  it('charges 1,200 tokens per image on top of the pieces', () => {
    const textOnly = o200kTokenCounter.countPieces(['hello world', 'hello world'], 0);
    expect(textOnly).toBe(4);
    expect(o200kTokenCounter.countPieces(['hello world'], 2)).toBe(2 + 2 * IMAGE_TOKEN_COST);
  });

  it('treats special-token markers inside session text as ordinary text instead of throwing', () => {
    expect(countO200kTokens('before <|endoftext|> after')).toBeGreaterThan(3);
  });

  it('gives plausible counts for code and prose (between 1 and 6 characters per token)', () => {
    const prose = 'The quick brown fox jumps over the lazy dog. '.repeat(20);
    const code = 'export function add(a: number, b: number): number {\n  return a + b;\n}\n'.repeat(20);
    for (const text of [prose, code]) {
      const tokens = countO200kTokens(text);
      expect(tokens).toBeGreaterThan(text.length / 6);
      expect(tokens).toBeLessThan(text.length);
    }
  });
});

describe('createTokenCounter', () => {
  it('returns the o200k counter by default and by name', () => {
    expect(createTokenCounter().name).toBe('o200k');
    expect(createTokenCounter('o200k')).toBe(o200kTokenCounter);
  });

  it('returns the reference heuristic for chars4: ceil(characters / 4), images at 4,800 characters', () => {
    const counter = createTokenCounter('chars4');
    expect(counter).toBe(charsPerFourCounter);
    expect(counter.countPieces(['hello world'], 0)).toBe(Math.ceil(11 / 4));
    expect(counter.countPieces(['abcd', 'e'], 1)).toBe(Math.ceil((5 + 4800) / 4));
  });

  it('recognises only the known counter names', () => {
    expect(isTokenCounterName('chars4')).toBe(true);
    expect(isTokenCounterName('cl100k')).toBe(false);
  });
});
