// Appends larger than the node's maximum append size (issue 26 item 5), on the protocol test
// server set to refuse appends over 64 KiB as a node does: refused whole (413 at the edge) unless
// the caller allows parts (`splitWhenTooLarge`, imports), then written in parts that each fit, in
// order and at chained revisions; an event too large by itself is refused with nothing written.
import { randomUUID } from 'node:crypto';
import { jsonEvent } from '@eventstore/db-client';
import { startEsdbTestServer, type EsdbTestServer } from '@strata/testing';
import { collect } from '../contract';
import { AppendTooLargeError, ConcurrencyError, type EventToAppend } from '../port';
import { EsdbEventStore } from './esdb-event-store';
import { appendBytesOf, appendParts } from './esdb-split-append';

const MAX_APPEND_BYTES = 64 * 1024;

function events(count: number, bytesEach: number): EventToAppend[] {
  return Array.from({ length: count }, (_, index) => ({
    id: randomUUID(),
    type: 'imported.entry',
    data: { index, text: 'x'.repeat(bytesEach) },
    metadata: { origin: 'import' },
  }));
}

describe('appends over the maximum append size of an EventStoreDB node', () => {
  let server: EsdbTestServer;
  let store: EsdbEventStore;

  beforeEach(async () => {
    server = await startEsdbTestServer({ maxAppendBytes: MAX_APPEND_BYTES });
    store = EsdbEventStore.fromConnectionString(server.connectionString);
  });

  afterEach(async () => {
    await store.close();
    await server.stop();
  });

  it('refuses one whole, with the bound and nothing stored, unless parts are allowed', async () => {
    const error = await store.appendToStream('whole', events(100, 1_000)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AppendTooLargeError);
    expect((error as AppendTooLargeError).maxAppendBytes).toBe(MAX_APPEND_BYTES);
    expect(await store.streamRevision('whole')).toBeNull();
  });

  it('writes one in parts that fit, in order, and answers the last revision and position', async () => {
    const written = events(300, 1_000);
    const result = await store.appendToStream('parts', written, {
      expectedRevision: 'no_stream',
      splitWhenTooLarge: true,
    });
    const stored = await collect(store.readStream('parts'));
    expect(stored.map((event) => event.id)).toEqual(written.map((event) => event.id));
    expect(result.nextExpectedRevision).toBe(299n);
    expect(result.position).toBe(stored[299]!.position);
    // the bound now known, a later import is cut at once, and the caller's expectation still holds
    const more = events(100, 1_000);
    await expect(
      store.appendToStream('parts', more, { expectedRevision: 10n, splitWhenTooLarge: true }),
    ).rejects.toBeInstanceOf(ConcurrencyError);
    await store.appendToStream('parts', more, { expectedRevision: 299n, splitWhenTooLarge: true });
    expect(await store.streamRevision('parts')).toBe(399n);
  });

  it('refuses one holding an event larger than the bound by itself, with nothing stored', async () => {
    const written = [...events(10, 1_000), ...events(1, MAX_APPEND_BYTES), ...events(10, 1_000)];
    const error = await store
      .appendToStream('oversized', written, { splitWhenTooLarge: true })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AppendTooLargeError);
    expect(await store.streamRevision('oversized')).toBeNull();
  });
});

describe('appendParts', () => {
  const proposed = (bytes: number) => jsonEvent({ type: 't', data: { text: 'y'.repeat(bytes) } });

  it('fills parts to nine tenths of the bound, keeps the order, and gives a heavy event a part alone', () => {
    const light = Array.from({ length: 20 }, () => proposed(100));
    const heavy = proposed(950);
    const split = appendParts([...light.slice(0, 10), heavy, ...light.slice(10)], 1_100);
    if (!('parts' in split)) throw new Error('refused');
    expect(split.parts.flat()).toEqual([...light.slice(0, 10), heavy, ...light.slice(10)]);
    for (const part of split.parts) {
      const bytes = part.reduce((total, event) => total + appendBytesOf(event), 0);
      expect(part.length === 1 || bytes <= 990).toBe(true);
    }
    expect(split.parts.some((part) => part.length === 1 && part[0] === heavy)).toBe(true);
  });

  it('names the first event heavier than the bound', () => {
    expect(appendParts([proposed(10), proposed(2_000), proposed(3_000)], 1_000)).toEqual({ tooLarge: 1 });
  });
});
