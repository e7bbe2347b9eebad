import { createHash } from 'node:crypto';
import { RECENT_KEYS, forgetRecentTextKeys, textKey, textKeysHashed } from './token-count-cache';

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('base64');

describe('textKey', () => {
  beforeEach(() => forgetRecentTextKeys());

  it('is the SHA-256 of the UTF-8 text, remembered or not', () => {
    const text = 'é'.repeat(10_000);
    expect(textKey(text)).toBe(sha256(text));
    expect(textKey(text)).toBe(sha256(text));
    // the same characters in another string (as a second reader parses them) have the same key
    expect(textKey(['é'.repeat(5_000), 'é'.repeat(5_000)].join(''))).toBe(sha256(text));
  });

  it('hashes a text looked up again while it is among the last ones only once', () => {
    const text = 'a'.repeat(1_000_000);
    const before = textKeysHashed();
    for (let lookup = 0; lookup < 4; lookup += 1) textKey(text);
    textKey(`${'a'.repeat(999_999)}b`);
    expect(textKeysHashed() - before).toBe(2);
  });

  it('remembers no more than its bound of texts', () => {
    const texts = Array.from({ length: RECENT_KEYS.texts + 1 }, (_, index) => `text ${index}`);
    for (const text of texts) textKey(text);
    const before = textKeysHashed();
    textKey(texts[texts.length - 1]!);
    expect(textKeysHashed() - before).toBe(0);
    textKey(texts[0]!);
    expect(textKeysHashed() - before).toBe(1);
  });

  it('does not remember a text longer than its bound of characters', () => {
    const huge = 'z'.repeat(RECENT_KEYS.characters + 1);
    const before = textKeysHashed();
    textKey(huge);
    textKey(huge);
    expect(textKeysHashed() - before).toBe(2);
  });
});
