import { InMemoryEventStore, type RecordedEvent } from '@strata/event-store';
import { verifyStream } from '@strata/integrity';
import { sessionStreamName } from '@strata/session';
import { session } from '@strata/testing';
import { SessionStreams } from '../session-streams/session-streams.service';
import { TenantMismatchError } from '../shared/command-context';
import { TenantGuardEventStore, type AppendResultKind } from './tenant-guard-event-store';

const builder = session({ sessionId: 'guarded-1' }).user('Hello').assistant('Hi.');
const streamId = sessionStreamName(builder.header.id);

async function recorded(store: TenantGuardEventStore): Promise<RecordedEvent[]> {
  const events: RecordedEvent[] = [];
  for await (const event of store.readStream(streamId)) events.push(event);
  return events;
}

describe('given a session started for tenant acme', () => {
  let store: TenantGuardEventStore;
  let streams: SessionStreams;
  const outcomes: AppendResultKind[] = [];

  beforeEach(async () => {
    outcomes.length = 0;
    store = new TenantGuardEventStore(new InMemoryEventStore(), [
      { appendFinished: (result) => outcomes.push(result) },
    ]);
    streams = new SessionStreams(store);
    await streams.execute(
      builder.header.id,
      { type: 'StartSession', data: { header: builder.header } },
      { tenant: 'acme' },
    );
  });

  afterEach(() => store.close());

  it('seals acme into the first event, once', async () => {
    const [first] = await recorded(store);
    expect(first?.metadata).toMatchObject({ tenant: 'acme', actor: 'strata-engine' });
    expect(await verifyStream(store, streamId)).toMatchObject({ ok: true, events: 1 });
  });

  it('gives later events written without a tenant (the CLI) the stream’s tenant, sealed with them', async () => {
    await streams.execute(builder.header.id, { type: 'AppendEntries', data: { entries: builder.entries } });
    const events = await recorded(store);
    expect(events.map((event) => event.metadata['tenant'])).toEqual(['acme', 'acme', 'acme']);
    expect(await verifyStream(store, streamId)).toMatchObject({ ok: true, events: 3 });
    expect(outcomes).toEqual(['ok', 'ok']);
  });

  it('refuses a command for another tenant and writes nothing', async () => {
    await expect(
      streams.execute(
        builder.header.id,
        { type: 'AppendEntries', data: { entries: builder.entries } },
        { tenant: 'globex' },
      ),
    ).rejects.toBeInstanceOf(TenantMismatchError);
    expect(await recorded(store)).toHaveLength(1);
  });

  it('refuses, at the store, an event another writer labels with another tenant', async () => {
    const foreign = {
      id: '018f0000-0000-7000-8000-000000000002',
      type: 'LeafMoved',
      data: { leafId: null, previousLeafId: null },
      metadata: { tenant: 'globex' },
    };
    await expect(store.appendToStream(streamId, [foreign])).rejects.toBeInstanceOf(TenantMismatchError);
    expect(await recorded(store)).toHaveLength(1);
    expect(outcomes).toEqual(['ok', 'error']);
  });

  it('refuses a new stream whose events disagree on their tenant', async () => {
    const other = sessionStreamName('guarded-2');
    const events = ['acme', 'globex'].map((tenant, index) => ({
      id: `018f0000-0000-7000-8000-00000000001${index}`,
      type: 'LeafMoved',
      data: { leafId: null, previousLeafId: null },
      metadata: { tenant },
    }));
    await expect(store.appendToStream(other, events)).rejects.toBeInstanceOf(TenantMismatchError);
    expect(await store.streamRevision(other)).toBeNull();
  });

  it('tells the observer of a conflict', async () => {
    const event = {
      id: '018f0000-0000-7000-8000-000000000001',
      type: 'LeafMoved',
      data: { leafId: null, previousLeafId: null },
      metadata: { tenant: 'acme' },
    };
    await expect(store.appendToStream(streamId, [event], { expectedRevision: 5n })).rejects.toThrow();
    expect(outcomes).toEqual(['ok', 'conflict']);
  });
});

describe('given a guard with two after-commit observers', () => {
  it('tells every observer in list order, each kind of hook before the next, and an erasure after it', async () => {
    const told: string[] = [];
    const observerOf = (name: string) => ({
      appendFinished: (result: AppendResultKind, events: number) => told.push(`${name} ${result} ${events}`),
      appended: (appendedTo: string, events: readonly unknown[], result: { nextExpectedRevision: bigint }) =>
        told.push(`${name} appended ${appendedTo}@${result.nextExpectedRevision} ${events.length}`),
      erased: (erasedStream: string) => told.push(`${name} erased ${erasedStream}`),
    });
    const store = new TenantGuardEventStore(new InMemoryEventStore(), [
      observerOf('metrics'),
      { appended: observerOf('anchors').appended, erased: observerOf('anchors').erased },
    ]);
    try {
      await new SessionStreams(store).execute(
        builder.header.id,
        { type: 'StartSession', data: { header: builder.header } },
        { tenant: 'acme' },
      );
      await store.appendToStream('other-1', [{ id: 'o-1', type: 'Noted', data: {} }]);
      await store.eraseStream(streamId, { actor: 'ana', reason: 'test' });
      expect(told).toEqual([
        'metrics ok 1',
        `metrics appended ${streamId}@0 1`,
        `anchors appended ${streamId}@0 1`,
        `metrics erased ${streamId}`,
        `anchors erased ${streamId}`,
      ]);
    } finally {
      await store.close();
    }
  });
});
