import {
  InMemoryEventStore,
  handleCommand,
  parseStoredSessionEvent,
  plainAppender,
  verifyStream,
  type RecordedEvent,
  type StreamAppender,
} from '@strata/event-store';
import { sessionDecider, sessionStreamName, type SessionCommand } from '@strata/session';
import { session } from '@strata/testing';
import { runAsTenant } from './tenant-scope';
import {
  TenantMismatchError,
  TenantStampingEventStore,
  type AppendResultKind,
} from './tenant-stamping-event-store';

const builder = session({ sessionId: 'stamped-1' }).user('Hello').assistant('Hi.');
const streamId = sessionStreamName(builder.header.id);

function write(store: TenantStampingEventStore, command: SessionCommand, appender?: StreamAppender) {
  return handleCommand(store, streamId, command, sessionDecider, {
    parseEvent: parseStoredSessionEvent,
    metadata: { actor: 'test' },
    ...(appender !== undefined ? { appender } : {}),
  });
}

async function recorded(store: TenantStampingEventStore, stream = streamId): Promise<RecordedEvent[]> {
  const events: RecordedEvent[] = [];
  for await (const event of store.readStream(stream)) events.push(event);
  return events;
}

describe('given a session started on behalf of tenant acme', () => {
  let store: TenantStampingEventStore;
  const outcomes: AppendResultKind[] = [];

  beforeEach(async () => {
    outcomes.length = 0;
    store = new TenantStampingEventStore(new InMemoryEventStore(), (result) => outcomes.push(result));
    await runAsTenant('acme', () => write(store, { type: 'StartSession', data: { header: builder.header } }));
  });

  afterEach(() => store.close());

  it('records acme on the first event and keeps the hash chain valid', async () => {
    const [first] = await recorded(store);
    expect(first?.metadata).toMatchObject({ tenant: 'acme', actor: 'test' });
    expect(await verifyStream(store, streamId)).toMatchObject({ ok: true, events: 1 });
  });

  it('stamps acme on later events written outside any tenant (a saga), sealed again', async () => {
    await write(store, { type: 'AppendEntries', data: { entries: builder.entries } });
    const events = await recorded(store);
    expect(events.map((event) => event.metadata['tenant'])).toEqual(['acme', 'acme', 'acme']);
    expect(await verifyStream(store, streamId)).toMatchObject({ ok: true, events: 3 });
    expect(outcomes).toEqual(['ok', 'ok']);
  });

  it('refuses a write on behalf of another tenant and writes nothing', async () => {
    await expect(
      runAsTenant('globex', () =>
        write(store, { type: 'AppendEntries', data: { entries: builder.entries } }),
      ),
    ).rejects.toBeInstanceOf(TenantMismatchError);
    expect(await recorded(store)).toHaveLength(1);
    expect(outcomes).toEqual(['ok', 'error']);
  });

  it('stamps unsealed events too', async () => {
    await write(store, { type: 'AppendEntries', data: { entries: builder.entries } }, plainAppender);
    const events = await recorded(store);
    expect(events.slice(1).map((event) => event.metadata['tenant'])).toEqual(['acme', 'acme']);
  });

  it('tells the observer of a conflict', async () => {
    await expect(
      store.appendToStream(streamId, [{ id: '018f0000-0000-7000-8000-000000000001', type: 'X', data: {} }], {
        expectedRevision: 'no_stream',
      }),
    ).rejects.toThrow();
    expect(outcomes[outcomes.length - 1]).toBe('conflict');
  });
});

describe('given a stream that is not a session stream', () => {
  it('passes events through as they are', async () => {
    const store = new TenantStampingEventStore(new InMemoryEventStore());
    await runAsTenant('acme', () =>
      store.appendToStream('audit-1', [
        { id: '018f0000-0000-7000-8000-000000000002', type: 'Noted', data: {} },
      ]),
    );
    const [event] = await recorded(store, 'audit-1');
    expect(event?.metadata).toEqual({});
    await store.close();
  });
});

describe('given a session started outside any tenant', () => {
  it('belongs to the tenant its own metadata names, else default', async () => {
    const store = new TenantStampingEventStore(new InMemoryEventStore());
    await write(store, { type: 'StartSession', data: { header: builder.header } });
    expect(await store.tenants.tenantOfSession(builder.header.id)).toBe('default');
    await expect(store.tenants.requireSessionOf('acme', builder.header.id)).rejects.toThrow(
      /not in the store/,
    );
    await store.close();
  });
});
