// The exact o200k counts the tokenizer suite compares Strata's with: js-tiktoken (exact
// o200k_base, the counter before), Strata's merger given each piece whole (exact, for pieces too
// long for js-tiktoken), and the simpler bound Strata does not use (fixed cuts every 8 KiB).
import { Tiktoken } from 'js-tiktoken/lite';
import o200kBase from 'js-tiktoken/ranks/o200k_base';
import { MERGE_WINDOW_BYTES } from '@strata/tokenizer';
import { BytePairMerger } from '../../libs/tokenizer/src/byte-pair-merge';
import { o200kVocabulary } from '../../libs/tokenizer/src/o200k-vocabulary';

const exactEncoder = new Tiktoken(o200kBase);
export const jsTiktokenCount = (text: string): number => exactEncoder.encode(text, [], []).length;

const vocabulary = o200kVocabulary();
const pieceSplitter = (): RegExp => new RegExp(vocabulary.pattern, 'gu');
const utf8 = (text: string): string => Buffer.from(text, 'utf8').toString('latin1');

/** Exact o200k for pieces of up to 65,000 bytes: each merged whole (equal to js-tiktoken, unit tests). */
const wholeMerger = new BytePairMerger(vocabulary, 65_000);
export function wholePieceCount(text: string): number {
  let tokens = 0;
  for (const match of text.matchAll(pieceSplitter())) {
    const bytes = utf8(match[0]);
    tokens += wholeMerger.count(bytes, 0, bytes.length);
  }
  return tokens;
}

/** The simpler bound Strata does not use: long pieces cut every 8 KiB, each part merged alone. */
const cutMerger = new BytePairMerger(vocabulary, MERGE_WINDOW_BYTES);
export function fixedCutCount(text: string): number {
  let tokens = 0;
  for (const match of text.matchAll(pieceSplitter())) {
    const bytes = utf8(match[0]);
    for (let start = 0; start < bytes.length;) {
      let end = Math.min(bytes.length, start + MERGE_WINDOW_BYTES);
      while (end < bytes.length && (bytes.charCodeAt(end) & 0xc0) === 0x80) end -= 1;
      tokens += cutMerger.count(bytes, start, end);
      start = end;
    }
  }
  return tokens;
}
