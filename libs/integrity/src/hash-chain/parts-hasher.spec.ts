import { sharedUtf8 } from '@strata/event-store';
import { sha256Hex } from './canonical-json';
import { holdsSharedBytes, sha256OfSharedParts } from './parts-hasher';

describe('the hasher thread', () => {
  it('hashes strings and shared bytes in order, as the joined text hashes', async () => {
    const large = 'ünïcode 漢字 🙂 '.repeat(50_000);
    const parts = ['{"data":', sharedUtf8(large), '},"id":"é"}'];
    expect(holdsSharedBytes(parts)).toBe(true);
    await expect(sha256OfSharedParts(parts)).resolves.toBe(sha256Hex(`{"data":${large}},"id":"é"}`));
  });

  it('answers many hashes at once, each its own', async () => {
    const texts = Array.from({ length: 20 }, (_, index) => `text ${index} `.repeat(1_000 * (index + 1)));
    const hashes = await Promise.all(texts.map((text) => sha256OfSharedParts([sharedUtf8(text)])));
    expect(hashes).toEqual(texts.map((text) => sha256Hex(text)));
  });

  it('says which parts hold no shared bytes (hashed elsewhere)', () => {
    expect(holdsSharedBytes(['only text'])).toBe(false);
    expect(holdsSharedBytes(['a', new TextEncoder().encode('own memory')])).toBe(false);
  });
});
