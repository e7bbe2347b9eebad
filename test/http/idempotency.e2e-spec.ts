// End to end over real HTTP, two tenants: idempotency keys and caller-chosen ids (issue 11,
// findings 2 and 3). A key reused with other content answers 409 `idempotency_mismatch` and
// writes nothing; the same key with the same content answers the first outcome; concurrent first
// requests with one key and different content leave exactly one written, and with the same
// content exactly one of them says it wrote (the others, `alreadyAppended: true`). Every id the
// engine derives is scoped by session, so one tenant can neither collide with nor claim in
// advance the ids of another's appends, labels or attempts. Writes made the way the engine made them before
// the change (seeds without a session scope) keep their idempotency.
import fc from 'fast-check';
import type { EventStore } from '@strata/event-store';
import { sessionStreamName, type SessionEntry } from '@strata/session';
import { session } from '@strata/testing';
import { InterruptedAttempts } from '../../apps/engine/src/attempts/interrupted-attempts.service';
import { SessionStreams } from '../../apps/engine/src/session-streams/session-streams.service';
import { EVENT_STORE } from '../../apps/engine/src/shared/injection-tokens';
import { CaseCounts } from '../reliability/support/case-counts';
import {
  ALPHA_KEY,
  BETA_KEY,
  TWO_TENANT_KEYS,
  problemOf,
  startHttpEngine,
  type ApiResponse,
  type HttpHarness,
} from './http-harness';

const counts = new CaseCounts('idempotency');

interface StoredEvent {
  readonly id: string;
  readonly type: string;
  readonly data: Record<string, unknown>;
}

describe('idempotency keys and chosen ids, two tenants over HTTP', () => {
  let engine: HttpHarness;
  let store: EventStore;

  beforeAll(async () => {
    engine = await startHttpEngine({
      environment: { STRATA_API_KEYS: TWO_TENANT_KEYS },
      settings: { compaction: { keepRecentTokens: 250 }, branchSummary: { enabled: true } },
    });
    store = engine.app.get<EventStore>(EVENT_STORE);
  });

  afterAll(async () => {
    counts.report();
    await engine.close();
  });

  async function eventsOf(sessionId: string): Promise<StoredEvent[]> {
    const events: StoredEvent[] = [];
    for await (const recorded of store.readStream(sessionStreamName(sessionId))) {
      events.push({ id: recorded.id, type: recorded.type, data: recorded.data as Record<string, unknown> });
    }
    return events;
  }

  async function storedEntryIds(sessionId: string): Promise<string[]> {
    return (await eventsOf(sessionId))
      .filter((event) => event.type === 'EntryAppended')
      .map((event) => (event.data['entry'] as SessionEntry).id);
  }

  async function start(sessionId: string, key: string, cwd = '/work'): Promise<void> {
    const started = await engine.request('POST', '/sessions', { body: { sessionId, cwd }, key });
    expect(started.status).toBe(201);
  }

  function append(
    sessionId: string,
    entries: readonly SessionEntry[],
    key: string,
    idempotencyKey?: string,
  ): Promise<ApiResponse> {
    return engine.request('POST', `/sessions/${encodeURIComponent(sessionId)}/entries`, {
      body: { entries, ...(idempotencyKey !== undefined ? { idempotencyKey } : {}) },
      key,
    });
  }

  /** A reused key or id with other content: 409 idempotency_mismatch (the caller checks the store). */
  function expectMismatch(response: ApiResponse, family: string): void {
    expect(response.status).toBe(409);
    expect(problemOf(response)).toMatchObject({ code: 'conflict', reason: 'idempotency_mismatch' });
    counts.record('reused key or id, other content: 409, nothing stored', [family]);
  }

  describe('an append with an idempotency key', () => {
    it('refuses the key reused with other entries and stores none of them', async () => {
      const builder = session({ sessionId: 'idem-append-1' });
      await start(builder.header.id, ALPHA_KEY);
      builder.user('A');
      const first = await append(builder.header.id, builder.entries, ALPHA_KEY, 'job-7');
      expect(first.body).toMatchObject({ entryIds: ['e0001'], alreadyAppended: false });
      const before = await eventsOf(builder.header.id);
      builder.user('B').assistant('C');
      const reused = await append(builder.header.id, builder.entries.slice(1), ALPHA_KEY, 'job-7');
      expectMismatch(reused, 'append');
      expect(await eventsOf(builder.header.id)).toEqual(before);
    });

    it('answers the same key and entries with the first outcome after the session moved on', async () => {
      const builder = session({ sessionId: 'idem-append-2' });
      await start(builder.header.id, ALPHA_KEY);
      builder.user('A').assistant('B');
      const first = await append(builder.header.id, builder.entries, ALPHA_KEY, 'job-8');
      expect(first.status).toBe(200);
      builder.user('later');
      expect((await append(builder.header.id, builder.entries.slice(2), ALPHA_KEY)).status).toBe(200);
      const before = await eventsOf(builder.header.id);
      const again = await append(builder.header.id, builder.entries.slice(0, 2), ALPHA_KEY, 'job-8');
      expect(again.status).toBe(200);
      expect(again.body).toEqual({ ...(first.body as object), alreadyAppended: true });
      expect(await eventsOf(builder.header.id)).toEqual(before);
      counts.record('same key, same content: the first outcome', ['append']);
    });

    it('keeps exactly one of concurrent first requests with one key and different entries', async () => {
      const rounds = 10;
      const writers = 6;
      for (let round = 0; round < rounds; round += 1) {
        const sessionId = `idem-race-${round}`;
        await start(sessionId, ALPHA_KEY);
        const batches = Array.from({ length: writers }, (_, writer) => {
          const builder = session({ sessionId, idPrefix: `w${writer}-` });
          builder.user(`writer ${writer}`);
          if (writer % 2 === 1) builder.assistant(`answer of writer ${writer}`);
          return builder.entries;
        });
        const answers = await Promise.all(
          batches.map((batch) => append(sessionId, batch, ALPHA_KEY, 'race')),
        );
        const winners = answers.flatMap((answer, writer) => (answer.status === 200 ? [writer] : []));
        expect(winners).toHaveLength(1);
        for (const answer of answers)
          if (answer.status !== 200) expectMismatch(answer, 'append (concurrent)');
        const winner = batches[winners[0]!]!;
        expect(await storedEntryIds(sessionId)).toEqual(winner.map((entry) => entry.id));
        counts.record('concurrent first requests, one key, different content', ['append']);
      }
    });

    it('writes once and answers alike when concurrent requests carry one key and the same entries', async () => {
      const builder = session({ sessionId: 'idem-race-same' });
      await start(builder.header.id, ALPHA_KEY);
      builder.user('A').assistant('B');
      const answers = await Promise.all(
        Array.from({ length: 6 }, () => append(builder.header.id, builder.entries, ALPHA_KEY, 'same')),
      );
      for (const answer of answers) {
        expect(answer.status).toBe(200);
        expect(answer.body).toMatchObject({ entryIds: ['e0001', 'e0002'], leafId: 'e0002', revision: '2' });
      }
      expect(await storedEntryIds(builder.header.id)).toEqual(['e0001', 'e0002']);
      counts.record('concurrent requests, one key, same content', ['append']);
    });

    it('answers alreadyAppended: false to exactly one of concurrent first requests with one key and the same entries (issue 25)', async () => {
      const rounds = 10;
      const writers = 6;
      for (let round = 0; round < rounds; round += 1) {
        const builder = session({ sessionId: `idem-race-same-${round}` });
        await start(builder.header.id, ALPHA_KEY);
        builder.user('A').assistant('B');
        const answers = await Promise.all(
          Array.from({ length: writers }, () =>
            append(builder.header.id, builder.entries, ALPHA_KEY, 'same'),
          ),
        );
        for (const answer of answers) expect(answer.status).toBe(200);
        const repeated = answers.filter(
          (answer) => (answer.body as { alreadyAppended: boolean }).alreadyAppended,
        );
        expect(answers.length - repeated.length).toBe(1);
        expect(await storedEntryIds(builder.header.id)).toEqual(['e0001', 'e0002']);
        counts.record('concurrent first requests, one key, same content: one writer', ['append']);
      }
    });
  });

  describe('a label with an idempotency key', () => {
    it('refuses the key reused for another label and answers the same one with the first outcome', async () => {
      const builder = session({ sessionId: 'idem-label' });
      await start(builder.header.id, ALPHA_KEY);
      builder.user('A').assistant('B');
      await append(builder.header.id, builder.entries, ALPHA_KEY);
      const path = `/sessions/${builder.header.id}/labels`;
      const body = { targetId: 'e0001', label: 'first', idempotencyKey: 'label-1' };
      const first = await engine.request('POST', path, { body, key: ALPHA_KEY });
      expect(first.status).toBe(200);
      await engine.request('POST', path, { body: { targetId: 'e0001', label: 'second' }, key: ALPHA_KEY });
      const before = await eventsOf(builder.header.id);
      expectMismatch(
        await engine.request('POST', path, { body: { ...body, label: 'other' }, key: ALPHA_KEY }),
        'label',
      );
      expectMismatch(
        await engine.request('POST', path, { body: { ...body, targetId: 'e0002' }, key: ALPHA_KEY }),
        'label',
      );
      const again = await engine.request('POST', path, { body, key: ALPHA_KEY });
      expect(again.body).toEqual({ ...(first.body as object), alreadySet: true });
      expect(await eventsOf(builder.header.id)).toEqual(before);
      counts.record('same key, same content: the first outcome', ['label']);
    });
  });

  describe('a session started with a chosen id', () => {
    it('refuses the id started again with another working directory or title', async () => {
      const first = await engine.request('POST', '/sessions', {
        body: { sessionId: 'idem-start', cwd: '/first', title: 'First' },
        key: ALPHA_KEY,
      });
      expect(first.status).toBe(201);
      await append('idem-start', session({ sessionId: 'idem-start' }).user('A').entries, ALPHA_KEY);
      const before = await eventsOf('idem-start');
      for (const body of [
        { sessionId: 'idem-start', cwd: '/other', title: 'First' },
        { sessionId: 'idem-start', cwd: '/first' },
        { sessionId: 'idem-start', cwd: '/first', title: 'First', parentSession: 'p' },
      ]) {
        expectMismatch(await engine.request('POST', '/sessions', { body, key: ALPHA_KEY }), 'start');
      }
      const again = await engine.request('POST', '/sessions', {
        body: { sessionId: 'idem-start', cwd: '/first', title: 'First' },
        key: ALPHA_KEY,
      });
      expect(again.status).toBe(200);
      expect(again.body).toEqual({ ...(first.body as object), alreadyStarted: true });
      expect(await eventsOf('idem-start')).toEqual(before);
      counts.record('same key, same content: the first outcome', ['start']);
    });
  });

  describe('an attempt id', () => {
    it('of a compaction refuses other instructions or another trigger and returns its outcome otherwise', async () => {
      const builder = session({ sessionId: 'idem-compact' }).editTurns(4);
      await engine.seed(builder.header, builder.entries, ALPHA_KEY);
      const path = '/sessions/idem-compact/compact';
      const body = { attemptId: 'compact-1', customInstructions: 'focus on the tests' };
      const first = await engine.request('POST', path, { body, key: ALPHA_KEY });
      expect(first.body).toMatchObject({ outcome: 'completed', redelivered: false });
      const before = await eventsOf('idem-compact');
      for (const other of [
        { attemptId: 'compact-1' },
        { ...body, customInstructions: 'focus on the docs' },
        { ...body, trigger: 'threshold' },
      ]) {
        expectMismatch(await engine.request('POST', path, { body: other, key: ALPHA_KEY }), 'compact');
      }
      const again = await engine.request('POST', path, { body, key: ALPHA_KEY });
      expect(again.body).toEqual({ ...(first.body as object), redelivered: true });
      expect(await eventsOf('idem-compact')).toEqual(before);
      counts.record('same key, same content: the first outcome', ['compact']);
    });

    it('of a summarised navigation refuses another target or other instructions', async () => {
      const builder = session({ sessionId: 'idem-navigate' }).editTurns(3);
      await engine.seed(builder.header, builder.entries, ALPHA_KEY);
      const path = '/sessions/idem-navigate/navigate';
      const body = { targetId: builder.entries[3]!.id, summarize: true, attemptId: 'navigate-1' };
      const first = await engine.request('POST', path, { body, key: ALPHA_KEY });
      expect(first.body).toMatchObject({ outcome: 'navigated', summary: { attemptId: 'navigate-1' } });
      const before = await eventsOf('idem-navigate');
      for (const other of [
        { ...body, targetId: builder.entries[1]!.id },
        { ...body, customInstructions: 'only the failures' },
        { ...body, summarize: false },
      ]) {
        expectMismatch(await engine.request('POST', path, { body: other, key: ALPHA_KEY }), 'navigate');
      }
      const compaction = await engine.request('POST', '/sessions/idem-navigate/compact', {
        body: { attemptId: 'navigate-1' },
        key: ALPHA_KEY,
      });
      expectMismatch(compaction, 'compact (a branch-summary id)');
      expect(await eventsOf('idem-navigate')).toEqual(before);
      await engine.request('POST', path, { body: { targetId: builder.lastId }, key: ALPHA_KEY });
      const again = await engine.request('POST', path, { body, key: ALPHA_KEY });
      expect(again.body).toEqual({ ...(first.body as object), redelivered: true });
      counts.record('same key, same content: the first outcome', ['navigate']);
    });
  });

  describe('ids derived for another tenant', () => {
    it("lets tenant beta use the attempt id and the keys of alpha's session", async () => {
      await start('scope-alpha', ALPHA_KEY);
      await start('scope-beta', BETA_KEY);
      for (const [sessionId, key] of [
        ['scope-alpha', ALPHA_KEY],
        ['scope-beta', BETA_KEY],
      ] as const) {
        const builder = session({ sessionId }).editTurns(4);
        expect((await append(sessionId, builder.entries, key, 'shared-key')).status).toBe(200);
        const label = await engine.request('POST', `/sessions/${sessionId}/labels`, {
          body: { targetId: 'e0001', label: 'mine', idempotencyKey: 'shared-label' },
          key,
        });
        expect(label.status).toBe(200);
        const compacted = await engine.request('POST', `/sessions/${sessionId}/compact`, {
          body: { attemptId: 'shared-attempt' },
          key,
        });
        expect(compacted.status).toBe(200);
        expect(compacted.body).toMatchObject({ outcome: 'completed', redelivered: false });
        const navigated = await engine.request('POST', `/sessions/${sessionId}/navigate`, {
          body: { targetId: builder.entries[3]!.id, summarize: true, attemptId: 'shared-navigation' },
          key,
        });
        expect(navigated.body).toMatchObject({
          outcome: 'navigated',
          summary: { attemptId: 'shared-navigation' },
        });
      }
      counts.record("one tenant reuses another's attempt id or key", [
        'append',
        'label',
        'compact',
        'navigate',
      ]);
    });

    it('keeps a crafted session id and key from colliding with the append of another tenant', async () => {
      const pairs = [
        { alpha: ['acme', 'x/append/y'], beta: ['acme/append/x', 'y'] },
        { alpha: ['a/append/b', 'c'], beta: ['a', 'b/append/c'] },
        { alpha: ['slash/', '/append/k'], beta: ['slash//append', 'k'] },
      ];
      for (const { alpha, beta } of pairs) {
        const written: string[][] = [];
        for (const [[sessionId, idempotencyKey], key] of [
          [alpha, ALPHA_KEY],
          [beta, BETA_KEY],
        ] as const) {
          await start(sessionId!, key);
          const builder = session({ sessionId: sessionId! }).user(`from ${sessionId}`);
          const answer = await append(sessionId!, builder.entries, key, idempotencyKey);
          expect(answer.status).toBe(200);
          expect(answer.body).toMatchObject({ alreadyAppended: false });
          written.push(await storedEntryIds(sessionId!));
        }
        expect(written).toEqual([['e0001'], ['e0001']]);
        counts.record('crafted session id + key that collided before', ['append']);
      }
    });

    it('keeps apart generated pairs whose session id and key a "/" join would make equal', async () => {
      const piece = fc
        .array(fc.constantFrom('a', 'b', '/', 'append', '-', '%', ' '), { minLength: 1, maxLength: 5 })
        .map((parts) => parts.join(''));
      let run = 0;
      await fc.assert(
        fc.asyncProperty(piece, piece, piece, async (prefix, middle, key) => {
          run += 1;
          const alpha = { sessionId: `gen-${run}-${prefix}`, idempotencyKey: `${middle}/append/${key}` };
          const beta = { sessionId: `${alpha.sessionId}/append/${middle}`, idempotencyKey: key };
          for (const [pair, apiKey] of [
            [alpha, ALPHA_KEY],
            [beta, BETA_KEY],
          ] as const) {
            await start(pair.sessionId, apiKey);
            const entries = session({ sessionId: pair.sessionId }).user('A').entries;
            const answer = await append(pair.sessionId, entries, apiKey, pair.idempotencyKey);
            expect(answer.status).toBe(200);
            expect(await storedEntryIds(pair.sessionId)).toEqual(['e0001']);
          }
          counts.record('generated session id + key pairs that collided before', ['append']);
        }),
        { numRuns: 25 },
      );
    });

    it("keeps an attempt id of one tenant from claiming the ids of another tenant's append", async () => {
      await start('claim-beta', BETA_KEY);
      const beta = session({ sessionId: 'claim-beta' }).editTurns(4);
      await append('claim-beta', beta.entries, BETA_KEY);
      const claimed = await engine.request('POST', '/sessions/claim-beta/compact', {
        body: { attemptId: 'claim-alpha/append/z' },
        key: BETA_KEY,
      });
      expect(claimed.body).toMatchObject({ outcome: 'completed' });
      await start('claim-alpha', ALPHA_KEY);
      const alpha = session({ sessionId: 'claim-alpha' });
      for (const idempotencyKey of ['z/start', 'z/outcome']) {
        alpha.user(`with the key ${idempotencyKey}`);
        const answer = await append('claim-alpha', alpha.entries.slice(-1), ALPHA_KEY, idempotencyKey);
        expect(answer.status).toBe(200);
        expect(answer.body).toMatchObject({ alreadyAppended: false });
        counts.record('attempt id chosen to claim ids of another tenant', ['append']);
      }
      expect(await storedEntryIds('claim-alpha')).toEqual(['e0001', 'e0002']);
    });
  });

  describe('writes stored before the change', () => {
    const streams = (): SessionStreams => engine.app.get(SessionStreams);

    it('keep the key of an append: the same entries answer the first outcome, others 409', async () => {
      const sessionId = 'legacy-append';
      await start(sessionId, ALPHA_KEY);
      const builder = session({ sessionId }).user('A');
      await streams().execute(
        sessionId,
        { type: 'AppendEntries', data: { entries: builder.entries } },
        { idSeed: `${sessionId}/append/old-key`, tenant: 'alpha' },
      );
      const before = await eventsOf(sessionId);
      const again = await append(sessionId, builder.entries, ALPHA_KEY, 'old-key');
      expect(again.body).toEqual({
        sessionId,
        entryIds: ['e0001'],
        leafId: 'e0001',
        revision: '1',
        alreadyAppended: true,
        compaction: null,
      });
      builder.user('B');
      expectMismatch(
        await append(sessionId, builder.entries.slice(1), ALPHA_KEY, 'old-key'),
        'append (before the change)',
      );
      expect(await eventsOf(sessionId)).toEqual(before);
      counts.record('key written before the change', ['append']);
    });

    it('keep a label key and a chosen session id', async () => {
      const sessionId = 'legacy-start';
      {
        await streams().execute(
          sessionId,
          {
            type: 'StartSession',
            data: {
              header: {
                type: 'session',
                version: 3,
                id: sessionId,
                timestamp: '2026-01-01T00:00:00.000Z',
                cwd: '/legacy',
              },
            },
          },
          { idSeed: `${sessionId}/start-session`, tenant: 'alpha' },
        );
        await streams().execute(sessionId, {
          type: 'AppendEntries',
          data: { entries: session({ sessionId }).user('A').entries },
        });
        await streams().execute(
          sessionId,
          {
            type: 'SetLabel',
            data: {
              entry: {
                type: 'label',
                id: 'legacy01',
                parentId: 'e0001',
                timestamp: '2026-01-01T00:00:02.000Z',
                targetId: 'e0001',
                label: 'kept',
              },
            },
          },
          { idSeed: `${sessionId}/label/old-label` },
        );
      }
      const before = await eventsOf(sessionId);
      const started = await engine.request('POST', '/sessions', {
        body: { sessionId, cwd: '/legacy' },
        key: ALPHA_KEY,
      });
      expect(started.status).toBe(200);
      expect(started.body).toMatchObject({ alreadyStarted: true, revision: '0' });
      expectMismatch(
        await engine.request('POST', '/sessions', { body: { sessionId, cwd: '/elsewhere' }, key: ALPHA_KEY }),
        'start (before the change)',
      );
      const path = `/sessions/${sessionId}/labels`;
      const label = await engine.request('POST', path, {
        body: { targetId: 'e0001', label: 'kept', idempotencyKey: 'old-label' },
        key: ALPHA_KEY,
      });
      expect(label.body).toMatchObject({ alreadySet: true, entry: { id: 'legacy01' }, revision: '2' });
      expectMismatch(
        await engine.request('POST', path, {
          body: { targetId: 'e0001', label: 'changed', idempotencyKey: 'old-label' },
          key: ALPHA_KEY,
        }),
        'label (before the change)',
      );
      expect(await eventsOf(sessionId)).toEqual(before);
      counts.record('key written before the change', ['start', 'label']);
    });

    it('end an attempt started before the change exactly once', async () => {
      const sessionId = 'legacy-attempt';
      const builder = session({ sessionId }).editTurns(4);
      await engine.seed(builder.header, builder.entries, ALPHA_KEY);
      await streams().execute(
        sessionId,
        {
          type: 'StartCompaction',
          data: {
            attemptId: 'old-attempt',
            trigger: 'manual',
            preparedAtLeafId: builder.lastId,
            tokensBefore: 100,
            startedAt: 0,
          },
        },
        { idSeed: 'old-attempt/start', tenant: 'alpha' },
      );
      const recovery = engine.app.get(InterruptedAttempts);
      const ended = await recovery.endOpenAttempts('requested');
      expect(ended).toContainEqual({ sessionId, attemptId: 'old-attempt', kind: 'compaction' });
      expect(await recovery.endOpenAttempts('requested')).not.toContainEqual(
        expect.objectContaining({ sessionId }),
      );
      const again = await engine.request('POST', `/sessions/${sessionId}/compact`, {
        body: { attemptId: 'old-attempt' },
        key: ALPHA_KEY,
      });
      expect(again.body).toMatchObject({
        outcome: 'failed',
        error: { code: 'interrupted' },
        redelivered: true,
      });
      const terminal = (await eventsOf(sessionId)).filter(
        (event) => event.type.startsWith('Compaction') && event.type !== 'CompactionStarted',
      );
      expect(terminal.map((event) => event.type)).toEqual(['CompactionFailed']);
      expect(terminal[0]!.data['attemptId']).toBe('old-attempt');
      counts.record('attempt started before the change, ended after', ['compact']);
    });
  });
});
