// End to end over real HTTP: the server-sent-events stream of session events under their
// public names, fed by the store's subscription, resumable with Last-Event-ID.
import { session, type SessionBuilder } from '@strata/testing';
import {
  ALPHA_KEY,
  AUDITOR_KEY,
  BETA_KEY,
  TWO_TENANT_KEYS,
  problemOf,
  startHttpEngine,
  type HttpHarness,
} from './http-harness';
import { openEventStream, type EventStreamConnection, type ReceivedEvent } from './sse-client';

function turns(builder: SessionBuilder, count: number): SessionBuilder {
  return builder.editTurns(count);
}

const settings = { compaction: { keepRecentTokens: 250 }, branchSummary: { enabled: true } };
const isCaughtUp = (comment: string): boolean => comment.startsWith('caught up');

async function connect(engine: HttpHarness, query: string, headers: Record<string, string> = {}) {
  const stream = await openEventStream(`${engine.url}/events${query}`, headers);
  if (stream.status === 200) await stream.waitForComment(isCaughtUp);
  return stream;
}

describe('given an engine and a subscriber of compaction events', () => {
  let engine: HttpHarness;

  beforeEach(async () => {
    engine = await startHttpEngine({ settings });
  });

  afterEach(() => engine.close());

  it('delivers session_compact with the stored compaction entry, under the global position as id', async () => {
    const stream = await connect(engine, '?types=session_compact');
    const builder = turns(session({ sessionId: 'events-manual' }), 4);
    await engine.seed(builder.header, builder.entries);
    const compaction = await engine.request('POST', '/sessions/events-manual/compact', { body: {} });
    const result = compaction.body as { outcome: string; entry: { id: string }; attemptId: string };

    const [event] = await stream.waitForEvents(1);
    expect(stream.contentType).toMatch(/^text\/event-stream/);
    expect(event).toMatchObject({ event: 'session_compact', id: event?.json.id });
    expect(event?.id).toMatch(/^\d+$/);
    expect(event?.json).toMatchObject({
      name: 'session_compact',
      sessionId: 'events-manual',
      data: {
        attemptId: result.attemptId,
        trigger: 'manual',
        fromExtension: false,
        compactionEntry: { type: 'compaction', id: result.entry.id },
      },
    });
    stream.close();
  });

  it('names an automatic attempt auto_compaction_start / auto_compaction_end besides session_compact', async () => {
    const stream = await connect(engine, '?types=auto_compaction_start,session_compact,auto_compaction_end');
    const builder = turns(session({ sessionId: 'events-auto' }), 4);
    await engine.seed(builder.header, builder.entries);
    await engine.request('POST', '/sessions/events-auto/compact', { body: { trigger: 'overflow' } });

    const events = await stream.waitForEvents(3);
    expect(events.map((event) => event.event)).toEqual([
      'auto_compaction_start',
      'session_compact',
      'auto_compaction_end',
    ]);
    const [start, compact, end] = events;
    expect(start?.id).toMatch(/^\d+\.1$/);
    expect(start?.json.data).toEqual({ attemptId: expect.any(String), reason: 'overflow' });
    expect(end?.id).toBe(`${compact?.id}.1`);
    expect(end?.json.data).toMatchObject({
      reason: 'overflow',
      outcome: 'completed',
      aborted: false,
      willRetry: true,
      skipped: false,
      result: { summary: expect.any(String), firstKeptEntryId: expect.any(String) },
    });
    stream.close();
  });

  it('ends an automatic attempt that had nothing to do as skipped, not as a failure (reference §11.1 item 8)', async () => {
    const builder = turns(session({ sessionId: 'events-skip' }), 4);
    await engine.seed(builder.header, builder.entries);
    await engine.request('POST', '/sessions/events-skip/compact', { body: {} });
    const stream = await connect(engine, '?types=auto_compaction_end');
    const again = await engine.request('POST', '/sessions/events-skip/compact', {
      body: { trigger: 'threshold' },
    });
    expect(again.body).toMatchObject({ outcome: 'skipped' });

    const [end] = await stream.waitForEvents(1);
    expect(end?.json.data).toMatchObject({
      reason: 'threshold',
      outcome: 'skipped',
      skipped: true,
      aborted: false,
      willRetry: false,
    });
    expect(end?.json.data).not.toHaveProperty('errorMessage');
    stream.close();
  });

  it('gives one session_tree per navigation, with the branch summary when one is written', async () => {
    const builder = turns(session({ sessionId: 'events-tree' }), 3);
    await engine.seed(builder.header, builder.entries);
    const stream = await connect(engine, '?types=session_tree');
    const plain = builder.entries[7]!.id;
    await engine.request('POST', '/sessions/events-tree/navigate', { body: { targetId: plain } });
    await engine.request('POST', '/sessions/events-tree/navigate', {
      body: { targetId: builder.entries[3]!.id, summarize: true },
    });

    const events = await stream.waitForEvents(2);
    expect(events[0]?.json.data).toEqual({
      cause: 'leaf_moved',
      newLeafId: plain,
      oldLeafId: builder.lastId,
    });
    expect(events[1]?.json.data).toMatchObject({
      cause: 'branch_summary',
      oldLeafId: plain,
      newLeafId: builder.entries[3]!.id,
      summaryEntry: { type: 'branch_summary', parentId: builder.entries[3]!.id },
      fromExtension: false,
    });
    await engine.request('POST', '/sessions/events-tree/labels', {
      body: { targetId: plain, label: 'done' },
    });
    await stream.waitForComment((comment) => comment === 'heartbeat');
    expect(stream.events).toHaveLength(2);
    stream.close();
  });

  it('keeps to one session when asked, and sends heartbeat comments', async () => {
    const one = turns(session({ sessionId: 'events-one' }), 1);
    const other = turns(session({ sessionId: 'events-other' }), 1);
    await engine.seed(one.header, []);
    await engine.seed(other.header, []);
    const stream = await connect(engine, '?session=events-one&types=entry_appended');
    await engine.request('POST', '/sessions/events-other/entries', { body: { entries: other.entries } });
    await engine.request('POST', '/sessions/events-one/entries', { body: { entries: one.entries } });
    await stream.waitForEvents(4);
    await stream.waitForComment((comment) => comment === 'heartbeat');
    expect(stream.events.map((event) => event.json.sessionId)).toEqual(Array(4).fill('events-one'));
    stream.close();
  });

  it('refuses unknown names and ids that are not ids of the stream', async () => {
    const names = await engine.request('GET', '/events?types=session_compact,compaction_done');
    expect(problemOf(names)).toMatchObject({ code: 'validation' });
    expect(problemOf(names).detail).toMatch(/compaction_done/);
    const id = await engine.request('GET', '/events', { headers: { 'last-event-id': 'yesterday' } });
    expect(problemOf(id).code).toBe('validation');
  });

  it('refuses a Last-Event-ID past the largest position (400), and resumes after the largest one', async () => {
    for (const beyond of ['99999999999999999999', '9223372036854775808', '9223372036854775808.1']) {
      const header = await engine.request('GET', '/events', { headers: { 'last-event-id': beyond } });
      expect(header.status).toBe(400);
      expect(problemOf(header)).toMatchObject({ code: 'validation' });
      const query = await engine.request('GET', `/events?lastEventId=${beyond}`);
      expect(problemOf(query).code).toBe('validation');
    }
    const largest = await openEventStream(`${engine.url}/events`, { 'last-event-id': '9223372036854775807' });
    expect(largest.status).toBe(200);
    await largest.waitForComment(isCaughtUp);
    largest.close();
  });

  it('ends open streams when the engine stops', async () => {
    const stream = await connect(engine, '');
    await engine.app.close();
    await stream.ended;
    engine = await startHttpEngine({ settings });
  });
});

describe('given a subscriber that loses its connection', () => {
  let engine: HttpHarness;

  beforeAll(async () => {
    engine = await startHttpEngine({ settings });
  });

  afterAll(() => engine.close());

  /** Every event from the start of the log, as one uninterrupted subscriber sees it. */
  async function everything(): Promise<ReceivedEvent[]> {
    const stream = await connect(engine, '?from=start');
    const events = [...stream.events];
    stream.close();
    return events;
  }

  async function collectUntilCaughtUp(stream: EventStreamConnection): Promise<ReceivedEvent[]> {
    await stream.waitForComment(isCaughtUp);
    return [...stream.events];
  }

  it('resumes with Last-Event-ID without losing or repeating an event', async () => {
    const first = turns(session({ sessionId: 'resume-1' }), 4);
    await engine.seed(first.header, first.entries);
    const before = await connect(engine, '?from=start');
    const seen = before.events.slice(0, 7);
    before.close();

    await engine.request('POST', '/sessions/resume-1/compact', { body: { trigger: 'threshold' } });
    const second = turns(session({ sessionId: 'resume-2' }), 2);
    await engine.seed(second.header, second.entries);

    const resumed = await openEventStream(`${engine.url}/events`, {
      'last-event-id': seen[seen.length - 1]!.id!,
    });
    const rest = await collectUntilCaughtUp(resumed);
    resumed.close();

    const all = await everything();
    const ids = [...seen, ...rest].map((event) => event.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(all.map((event) => event.id));
    expect(all.map((event) => event.event)).toEqual(
      expect.arrayContaining([
        'compaction_start',
        'auto_compaction_start',
        'session_compact',
        'auto_compaction_end',
      ]),
    );
  });

  it('resumes between the two public events of one store event', async () => {
    const all = await everything();
    const index = all.findIndex((event) => event.event === 'compaction_start');
    const primary = all[index]!;
    const secondary = all[index + 1]!;
    expect(secondary).toMatchObject({ event: 'auto_compaction_start', id: `${primary.id}.1` });

    const afterPrimary = await openEventStream(`${engine.url}/events?from=start`, {
      'last-event-id': primary.id!,
    });
    const rest = await collectUntilCaughtUp(afterPrimary);
    afterPrimary.close();
    expect(rest.map((event) => event.id)).toEqual(all.slice(index + 1).map((event) => event.id));

    const afterSecondary = await openEventStream(`${engine.url}/events`, { 'last-event-id': secondary.id! });
    const later = await collectUntilCaughtUp(afterSecondary);
    afterSecondary.close();
    expect(later.map((event) => event.id)).toEqual(all.slice(index + 2).map((event) => event.id));
  });

  it('resumes with the lastEventId query parameter too', async () => {
    const all = await everything();
    const stream = await openEventStream(`${engine.url}/events?lastEventId=${all[all.length - 3]!.id}`);
    const rest = await collectUntilCaughtUp(stream);
    stream.close();
    expect(rest.map((event) => event.id)).toEqual(all.slice(-2).map((event) => event.id));
  });
});

describe('given an engine that serves one event stream at most', () => {
  let engine: HttpHarness;

  beforeAll(async () => {
    engine = await startHttpEngine({ environment: { STRATA_MAX_EVENT_STREAMS: '1' } });
  });

  afterAll(() => engine.close());

  it('answers a second stream 503 unavailable with Retry-After', async () => {
    const first = await connect(engine, '');
    const second = await engine.request('GET', '/events');
    expect(second.status).toBe(503);
    expect(problemOf(second).code).toBe('unavailable');
    expect(second.headers.get('retry-after')).toBe('5');
    first.close();
  });
});

describe('given two tenants sharing an engine that serves four event streams', () => {
  let engine: HttpHarness;

  beforeAll(async () => {
    engine = await startHttpEngine({
      environment: { STRATA_API_KEYS: TWO_TENANT_KEYS, STRATA_MAX_EVENT_STREAMS: '4' },
    });
  });

  afterAll(() => engine.close());

  it('gives each tenant two: a tenant over its share answers 503, the other still connects', async () => {
    const alpha = [
      await connect(engine, '', { authorization: `Bearer ${ALPHA_KEY}` }),
      await connect(engine, '', { authorization: `Bearer ${AUDITOR_KEY}` }),
    ];
    expect(alpha.map((stream) => stream.status)).toEqual([200, 200]);
    const third = await engine.request('GET', '/events', { key: AUDITOR_KEY });
    expect(third.status).toBe(503);
    expect(problemOf(third)).toMatchObject({ code: 'unavailable' });
    expect(problemOf(third).detail).toMatch(/share of 2 event streams/);
    expect(third.headers.get('retry-after')).toBe('5');
    const beta = [
      await connect(engine, '', { authorization: `Bearer ${BETA_KEY}` }),
      await connect(engine, '', { authorization: `Bearer ${BETA_KEY}` }),
    ];
    expect(beta.map((stream) => stream.status)).toEqual([200, 200]);
    alpha[0]!.close();
    await alpha[0]!.ended;
    const again = await connect(engine, '', { authorization: `Bearer ${ALPHA_KEY}` });
    expect(again.status).toBe(200);
    for (const stream of [alpha[1]!, again, ...beta]) stream.close();
  });
});
