import { fnv1a32, legacyEntryId } from './legacy-entry-ids';

describe('fnv1a32', () => {
  it.each([
    ['', 0x811c9dc5],
    ['a', 0xe40c292c],
    ['foobar', 0xbf9cf968],
  ])('matches the published FNV-1a test vector for %j', (text, expected) => {
    expect(fnv1a32(text)).toBe(expected);
  });

  it('hashes the UTF-8 bytes of non-ASCII text', () => {
    // "é" is the two bytes c3 a9 in UTF-8.
    const manual = Math.imul(Math.imul(0x811c9dc5 ^ 0xc3, 0x01000193) ^ 0xa9, 0x01000193) >>> 0;
    expect(fnv1a32('é')).toBe(manual);
  });
});

describe('legacyEntryId', () => {
  it('is a pure function of the session id and the file index', () => {
    expect(legacyEntryId('session-1', 1, new Set())).toBe(
      fnv1a32('session-1:1').toString(16).padStart(8, '0'),
    );
    expect(legacyEntryId('session-1', 1, new Set())).toBe(legacyEntryId('session-1', 1, new Set()));
    expect(legacyEntryId('session-1', 1, new Set())).not.toBe(legacyEntryId('session-2', 1, new Set()));
  });

  it('stays the same from run to run (pinned values)', () => {
    expect(legacyEntryId('session-1', 1, new Set())).toBe('5e996bec');
    expect(legacyEntryId('ffae836b-9420-4060-ac13-7745215f90ff', 1, new Set())).toBe('288b453e');
  });

  it('gives 8 lowercase hex chars', () => {
    expect(legacyEntryId('ffae836b-9420-4060-ac13-7745215f90ff', 7, new Set())).toMatch(/^[0-9a-f]{8}$/);
  });

  it('rehashes with an attempt counter when the id is taken', () => {
    const first = legacyEntryId('s', 3, new Set());
    const second = legacyEntryId('s', 3, new Set([first]));
    expect(second).toBe(fnv1a32('s:3:1').toString(16).padStart(8, '0'));
    expect(legacyEntryId('s', 3, new Set([first, second]))).toBe(
      fnv1a32('s:3:2').toString(16).padStart(8, '0'),
    );
  });

  it('keeps ids unique across a long file when each id is added to the taken set', () => {
    const taken = new Set<string>();
    for (let index = 1; index <= 20_000; index += 1) taken.add(legacyEntryId('long-session', index, taken));
    expect(taken.size).toBe(20_000);
  });
});
