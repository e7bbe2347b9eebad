// Syncing a grown session file over HTTP (issue 15, item 1): POST /sessions/import of a file
// whose stored entries are its first ones appends the rest in one append and says how many; a
// part of a file (`fromEntry`, as strata watch sends it) is synced the same way; a file that
// differs answers 409 naming the first line that differs; the bound on one session applies to
// what is appended. Against a real engine on a SQLite file.
import { serializeSessionFile } from '@strata/session';
import { session } from '@strata/testing';
import { problemOf, startHttpEngine, storedEventsOf, type HttpHarness } from './http-harness';

const NDJSON = 'application/x-ndjson';

describe('POST /sessions/import of a file that grew', () => {
  let engine: HttpHarness;
  beforeAll(async () => {
    engine = await startHttpEngine({ environment: { STRATA_MAX_SESSION_ENTRIES: '40' } });
  });
  afterAll(() => engine.close());

  const importFile = (text: string, query = '') =>
    engine.request('POST', `/sessions/import${query}`, { rawBody: text, contentType: NDJSON });

  const builder = session({ sessionId: 'sync-http' })
    .user('Run the tests')
    .assistantToolCalls([{ name: 'bash', arguments: { command: 'npm test' } }])
    .toolResult('bash', '3 passed')
    .assistant('All green.')
    .user('Thanks');
  const fileWith = (count: number) => serializeSessionFile(builder.header, builder.entries.slice(0, count));

  it('appends the new entries of the grown file in one append, answering appended', async () => {
    expect((await importFile(fileWith(2))).status).toBe(201);
    const grown = await importFile(fileWith(5));
    expect(grown.status).toBe(200);
    expect(grown.body).toMatchObject({ outcome: 'appended', appended: 3, entryCount: 5, eventsWritten: 3 });
    const again = await importFile(fileWith(5));
    expect(again.body).toMatchObject({ outcome: 'unchanged', appended: 0 });
    const exported = await engine.request('GET', '/sessions/sync-http/export');
    expect(exported.text).toBe(fileWith(5));
    const events = await storedEventsOf(engine, 'sync-http');
    const correlations = events.slice(3).map((event) => event.metadata['correlationId']);
    expect(new Set(correlations).size).toBe(1);
  });

  it('answers 409 for a file that differs, naming the first line and entry that differ', async () => {
    const changed = fileWith(5).replace('3 passed', '2 passed, 1 failed');
    const response = await importFile(changed);
    expect(response.status).toBe(409);
    const resultId = builder.entries[2]!.id;
    expect(problemOf(response)).toMatchObject({
      code: 'conflict',
      reason: 'import_conflict',
      firstDifference: { line: 4, entryIndex: 2, entryId: resultId, storedEntryId: resultId },
      storedEntries: 5,
    });
    expect(problemOf(response).detail).toContain(`line 4 (entry 3) differs: ${resultId} in the file`);
  });

  it('takes a part of a file after the stored entries (fromEntry), and refuses one after a gap', async () => {
    const followed = session({ sessionId: 'sync-part' }).user('one').assistant('two').user('three');
    const part = (from: number, to: number) =>
      serializeSessionFile(followed.header, followed.entries.slice(from, to));
    expect((await importFile(part(0, 1), '?fromEntry=0')).body).toMatchObject({
      outcome: 'imported',
      appended: 1,
    });
    const gap = await importFile(part(2, 3), '?fromEntry=2');
    expect(gap.status).toBe(409);
    expect(problemOf(gap)).toMatchObject({ reason: 'import_conflict', storedEntries: 1 });
    expect((await importFile(part(0, 3), '?fromEntry=0')).body).toMatchObject({
      outcome: 'appended',
      appended: 2,
      entryCount: 3,
    });
    expect((await importFile(part(1, 3), '?fromEntry=1')).body).toMatchObject({ outcome: 'unchanged' });
    expect((await engine.request('GET', '/sessions/sync-part/export')).text).toBe(part(0, 3));
    const lenient = await importFile(part(0, 3), '?fromEntry=0&lenient=true');
    expect(problemOf(lenient)).toMatchObject({ code: 'validation' });
  });

  it('applies the bound on one session to the appended part, and stores nothing of a refused one', async () => {
    const heavy = session({ sessionId: 'sync-heavy' });
    // each entry weighs 1 + 20,000 / 2,048 = 10
    for (let turn = 0; turn < 5; turn += 1) heavy.user(`${turn}${'z'.repeat(20_000)}`);
    const file = (count: number) => serializeSessionFile(heavy.header, heavy.entries.slice(0, count));
    expect((await importFile(file(3))).status).toBe(201);
    const passing = await importFile(file(5));
    expect(passing.status).toBe(413);
    expect(problemOf(passing)).toMatchObject({ reason: 'session_too_large', weight: 50, maxWeight: 40 });
    const part = serializeSessionFile(heavy.header, heavy.entries.slice(3, 5));
    const passingPart = await importFile(part, '?fromEntry=3');
    expect(problemOf(passingPart)).toMatchObject({ reason: 'session_too_large', weight: 50 });
    expect((await importFile(file(4))).body).toMatchObject({ outcome: 'appended', appended: 1 });
    expect((await engine.request('GET', '/sessions/sync-heavy/entries')).body).toMatchObject({ total: 4 });
  });
});
