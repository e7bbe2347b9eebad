// End to end over real HTTP: one correlation id per attempt (issue 13, item 7). Every event of a
// compaction or branch-summary attempt — its start, the entry it wrote and its outcome, appended
// in separate writes — carries the same `correlationId` in its sealed metadata: the id of the
// attempt's start event. Two attempts never share one, and the events of other writes keep theirs.
import type { RecordedEvent } from '@strata/event-store';
import { session } from '@strata/testing';
import { SagaRunner } from '../../apps/engine/src/sagas/saga-runner.service';
import { startHttpEngine, storedEventsOf, turnOverThreshold, type HttpHarness } from './http-harness';

const settings = {
  compaction: { keepRecentTokens: 250, reserveTokens: 2000, autoContinue: false },
  branchSummary: { enabled: true },
  models: { defaultContextWindow: 10000 },
};

const attemptIdOf = (event: RecordedEvent): string | undefined =>
  (event.data as { attemptId?: string }).attemptId;

/** The events of each attempt (its own events and the entry written in its outcome's append), by attempt id. */
function eventsByAttempt(events: readonly RecordedEvent[]): Map<string, RecordedEvent[]> {
  const byAttempt = new Map<string, RecordedEvent[]>();
  events.forEach((event, index) => {
    let attemptId = attemptIdOf(event);
    const next = events[index + 1];
    const after = events[index + 2];
    if (attemptId === undefined && (event.type === 'EntryAppended' || event.type === 'LeafMoved')) {
      const completes = [next, after].find(
        (candidate) =>
          candidate?.type === 'CompactionCompleted' || candidate?.type === 'BranchSummaryCompleted',
      );
      const sameAppend = completes?.metadata['correlationId'] === event.metadata['correlationId'];
      if (completes !== undefined && sameAppend) attemptId = attemptIdOf(completes);
    }
    if (attemptId !== undefined) byAttempt.set(attemptId, [...(byAttempt.get(attemptId) ?? []), event]);
  });
  return byAttempt;
}

describe('given compaction and branch-summary attempts made over HTTP and by a saga', () => {
  let engine: HttpHarness;
  let events: RecordedEvent[];

  beforeAll(async () => {
    engine = await startHttpEngine({ settings });
    const builder = session({ sessionId: 'correlated' }).editTurns(6);
    await engine.seed(builder.header, builder.entries);
    const compacted = await engine.request('POST', '/sessions/correlated/compact', {
      body: { attemptId: 'manual-1' },
    });
    expect(compacted.body).toMatchObject({ outcome: 'completed' });
    const skipped = await engine.request('POST', '/sessions/correlated/compact', {
      body: { attemptId: 'manual-2' },
    });
    expect(skipped.body).toMatchObject({ outcome: 'skipped' });
    const navigated = await engine.request('POST', '/sessions/correlated/navigate', {
      body: { targetId: builder.entries[5]!.id, summarize: true, attemptId: 'branch-1' },
    });
    expect(navigated.body).toMatchObject({ outcome: 'navigated', summary: { attemptId: 'branch-1' } });
    const tree = (await engine.request('GET', '/sessions/correlated')).body as { leafId: string };
    const entries = turnOverThreshold('correlated', tree.leafId);
    expect((await engine.request('POST', '/sessions/correlated/entries', { body: { entries } })).status).toBe(
      200,
    );
    await engine.app.get(SagaRunner).drain();
    events = await storedEventsOf(engine, 'correlated');
  });

  afterAll(() => engine.close());

  it('gives every event of an attempt the id of its start event as correlation id, across its appends', () => {
    const byAttempt = eventsByAttempt(events);
    const automatic = [...byAttempt.keys()].filter(
      (id) => !['manual-1', 'manual-2', 'branch-1'].includes(id),
    );
    expect(automatic).toHaveLength(1);
    const shapes = [...byAttempt].map(([attemptId, own]) => ({
      attemptId,
      types: own.map((event) => event.type),
      correlations: [...new Set(own.map((event) => event.metadata['correlationId']))],
    }));
    expect(shapes).toEqual([
      {
        attemptId: 'manual-1',
        types: ['CompactionStarted', 'EntryAppended', 'CompactionCompleted'],
        correlations: [byAttempt.get('manual-1')![0]!.id],
      },
      {
        attemptId: 'manual-2',
        types: ['CompactionStarted', 'CompactionSkipped'],
        correlations: [byAttempt.get('manual-2')![0]!.id],
      },
      {
        attemptId: 'branch-1',
        types: ['BranchSummaryStarted', 'LeafMoved', 'EntryAppended', 'BranchSummaryCompleted'],
        correlations: [byAttempt.get('branch-1')![0]!.id],
      },
      {
        attemptId: automatic[0],
        types: ['CompactionStarted', 'EntryAppended', 'CompactionCompleted'],
        correlations: [byAttempt.get(automatic[0]!)![0]!.id],
      },
    ]);
  });

  it('keeps the correlation ids of different attempts and of other writes apart', () => {
    const byAttempt = eventsByAttempt(events);
    const attemptCorrelations = [...byAttempt.values()].map((own) => own[0]!.metadata['correlationId']);
    expect(new Set(attemptCorrelations).size).toBe(attemptCorrelations.length);
    const inAttempts = new Set([...byAttempt.values()].flat().map((event) => event.id));
    const others = events.filter((event) => !inAttempts.has(event.id));
    expect(others.length).toBeGreaterThan(0);
    for (const other of others) expect(attemptCorrelations).not.toContain(other.metadata['correlationId']);
  });

  it('still verifies', async () => {
    const verified = await engine.request('GET', '/sessions/correlated/verify');
    expect(verified.body).toMatchObject({ ok: true });
  });
});
