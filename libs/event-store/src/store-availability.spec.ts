import { SqliteEventStore } from './sqlite';
import { isStoreUnavailableError, storeUnavailableReason } from './store-availability';

async function failureOf(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

const event = { id: '0195d3a0-0000-7000-8000-000000000001', type: 'Noted', data: {} };

describe('storeUnavailableReason', () => {
  it('recognises a SQLite store that refuses writes (read-only) and one that is closed', async () => {
    const store = new SqliteEventStore({ filename: ':memory:' });
    store.database.pragma('query_only = ON');
    const readOnly = await failureOf(() => store.appendToStream('s-1', [event]));
    expect(storeUnavailableReason(readOnly)).toBe('SQLITE_READONLY');
    await store.close();
    const closed = await failureOf(() => store.streamRevision('s-1'));
    expect(isStoreUnavailableError(closed)).toBe(true);
  });

  it("recognises the EventStoreDB client's connection errors by their type", () => {
    expect(storeUnavailableReason(Object.assign(new Error('UNAVAILABLE'), { type: 'unavailable' }))).toBe(
      'unavailable',
    );
    expect(isStoreUnavailableError(Object.assign(new Error('late'), { type: 'deadline-exceeded' }))).toBe(
      true,
    );
  });

  it('leaves every other error alone', () => {
    expect(isStoreUnavailableError(new Error('bug'))).toBe(false);
    expect(isStoreUnavailableError(Object.assign(new Error('x'), { code: 'SQLITE_CONSTRAINT_UNIQUE' }))).toBe(
      false,
    );
    expect(isStoreUnavailableError(Object.assign(new Error('x'), { type: 'wrong-expected-version' }))).toBe(
      false,
    );
    expect(isStoreUnavailableError('text')).toBe(false);
  });
});
