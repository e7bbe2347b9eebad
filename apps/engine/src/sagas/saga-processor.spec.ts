import type { CommandBus } from '@nestjs/cqrs';
import { InMemoryEventStore, type RecordedEvent } from '@strata/event-store';
import { charsPerFourCounter, type SessionEvent } from '@strata/session';
import { session } from '@strata/testing';
import { CompactSessionCommand } from '../sessions/compact-session/compact-session.command';
import { SessionStreams } from '../session-streams/session-streams.service';
import { parseEngineSettings } from '../settings/engine-settings';
import { RequestContinuationCommand } from './request-continuation/request-continuation.command';
import { decodeSagaEvent, sagaProcessor } from './saga-processor';

function recorded(
  event: SessionEvent,
  metadata: Record<string, unknown> = {},
  streamId = 'session-s1',
): RecordedEvent {
  return {
    streamId,
    id: '0190f000-0000-7000-8000-000000000001',
    type: event.type,
    data: event.data,
    metadata,
    revision: 3n,
    position: 9n,
    createdAt: '2026-02-01T00:00:00.000Z',
  };
}

const builder = session({ sessionId: 's1' }).user('Hello').assistant('Hi');
const answer = builder.entries[builder.entries.length - 1]!;
const question = builder.entries[0]!;

describe('reading stored events for the sagas', () => {
  it('makes a trigger of an assistant answer, with its session and tenant, partitioned by stream', () => {
    const decoded = decodeSagaEvent(
      recorded({ type: 'EntryAppended', data: { entry: answer } }, { tenant: 'acme' }),
    );
    expect(decoded).toMatchObject({
      kind: 'message',
      partition: 'session-s1',
      tenant: 'acme',
      message: {
        sessionId: 's1',
        tenant: 'acme',
        position: 9n,
        recordedAt: Date.parse('2026-02-01T00:00:00.000Z'),
      },
    });
  });

  it('makes a trigger of a user message too: the check before a prompt (issue 13)', () => {
    expect(decodeSagaEvent(recorded({ type: 'EntryAppended', data: { entry: question } })).kind).toBe(
      'message',
    );
  });

  it('passes over what concerns no saga: other entries, imported history, other streams', () => {
    const label = {
      type: 'label' as const,
      id: 'l1',
      parentId: answer.id,
      timestamp: answer.timestamp,
      targetId: answer.id,
    };
    expect(decodeSagaEvent(recorded({ type: 'EntryAppended', data: { entry: label } })).kind).toBe('pass');
    const imported = recorded({ type: 'EntryAppended', data: { entry: answer } }, { origin: 'import' });
    expect(decodeSagaEvent(imported).kind).toBe('pass');
    const elsewhere = recorded({ type: 'EntryAppended', data: { entry: answer } }, {}, 'orders-1');
    expect(decodeSagaEvent(elsewhere).kind).toBe('pass');
  });

  it('reports an event that cannot be read back, with its stream', () => {
    const broken = { ...recorded({ type: 'EntryAppended', data: { entry: answer } }), data: { entry: 42 } };
    expect(decodeSagaEvent(broken)).toMatchObject({
      kind: 'invalid',
      partition: 'session-s1',
      tenant: 'default',
    });
  });
});

describe('the saga processor', () => {
  it('runs the commands the sagas ask for through the CommandBus, in order, on the session as it is now', async () => {
    const store = new InMemoryEventStore();
    const streams = new SessionStreams(store);
    await streams.execute('s1', { type: 'StartSession', data: { header: builder.header } });
    await streams.execute('s1', { type: 'AppendEntries', data: { entries: builder.entries } });
    await streams.execute('s1', [
      {
        type: 'StartCompaction',
        data: {
          attemptId: 'a1',
          trigger: 'threshold',
          preparedAtLeafId: answer.id,
          tokensBefore: 10,
          startedAt: 1,
        },
      },
    ]);
    const executed: unknown[] = [];
    const commandBus = {
      execute: (command: unknown) => Promise.resolve(executed.push(command)),
    } as unknown as CommandBus;
    let counted = 0;
    const processor = sagaProcessor({
      streams,
      commandBus,
      settings: parseEngineSettings({ compaction: { autoContinue: true } }),
      tokenCounter: charsPerFourCounter,
      onCommands: (count) => {
        counted += count;
      },
    });
    const completed = decodeSagaEvent(
      recorded({
        type: 'CompactionCompleted',
        data: {
          attemptId: 'a1',
          entryId: 'c1',
          trigger: 'threshold',
          durationMs: 1,
          tokensBefore: 10,
          estimatedTokensAfter: 5,
        },
      }),
    );
    if (completed.kind !== 'message') throw new Error('expected a trigger');

    await processor.handle(completed.message, { signal: new AbortController().signal, delivery: 1 });

    expect(executed).toHaveLength(1);
    expect(executed[0]).toBeInstanceOf(RequestContinuationCommand);
    expect(executed[0]).toMatchObject({
      sessionId: 's1',
      request: { reason: 'auto_continue', causationAttemptId: 'a1' },
    });
    expect(counted).toBe(1);
    expect(executed.some((command) => command instanceof CompactSessionCommand)).toBe(false);
  });

  it('asks for nothing on a session that no longer exists', async () => {
    const executed: unknown[] = [];
    const processor = sagaProcessor({
      streams: new SessionStreams(new InMemoryEventStore()),
      commandBus: {
        execute: (command: unknown) => Promise.resolve(executed.push(command)),
      } as unknown as CommandBus,
      settings: parseEngineSettings({}),
      tokenCounter: charsPerFourCounter,
    });
    const trigger = decodeSagaEvent(recorded({ type: 'EntryAppended', data: { entry: answer } }));
    if (trigger.kind !== 'message') throw new Error('expected a trigger');
    await processor.handle(trigger.message, { signal: new AbortController().signal, delivery: 1 });
    expect(executed).toEqual([]);
  });
});
