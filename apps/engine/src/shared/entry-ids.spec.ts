import { newEntryId } from './entry-ids';

describe('engine entry ids', () => {
  it('have pi shape and depend only on the seed', () => {
    const id = newEntryId(() => false, 'attempt-1/compaction');
    expect(id).toMatch(/^[0-9a-f]{8}$/);
    expect(newEntryId(() => false, 'attempt-1/compaction')).toBe(id);
    expect(newEntryId(() => false, 'attempt-2/compaction')).not.toBe(id);
  });

  it('grow longer instead of clashing with an existing entry', () => {
    const short = newEntryId(() => false, 'seed');
    const longer = newEntryId((candidate) => candidate === short, 'seed');
    expect(longer).toHaveLength(12);
    expect(longer.startsWith(short)).toBe(true);
  });
});
