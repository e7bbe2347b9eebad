// The engine process killed with SIGKILL (issue 6, part 2): during a slow compaction, during a
// branch summary and at several points of a large import, then started again on the same
// SQLite store. After each restart: the file is sound, every session stream verifies and every
// event is a whole session event, every attempt that started has ended (the interrupted ones
// as failed, code `interrupted`), an import is all there or not at all, the engine works on,
// and the projections it kept through the crash equal a rebuild from the log.
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serializeSessionFile } from '@strata/session';
import { session, type SessionBuilder } from '@strata/testing';
import { CaseCounts } from './support/case-counts';
import { httpRequest, startEngineProcess, storeFileOf, type EngineProcess } from './support/engine-process';
import { keptAndRebuiltProjections, storeHealth } from './support/store-checks';
import { SummaryEndpoint } from './support/summary-endpoint';

jest.setTimeout(240_000);

const counts = new CaseCounts('engine killed with SIGKILL');
let directory: string;
let endpoint: SummaryEndpoint;
let engine: EngineProcess | undefined;

function settings() {
  return {
    compaction: { keepRecentTokens: 250 },
    branchSummary: { enabled: true },
    // Large enough that the sagas leave the imported sessions alone (they would compact a session
    // over its window, and the re-import of the same file would then be a conflict).
    models: { defaultContextWindow: 10_000_000 },
    summarizer: {
      candidates: [{ provider: 'remote' as const, url: endpoint.url, timeoutMs: 120_000 }],
      retry: { maxRetries: 0 },
    },
  };
}

function start(): Promise<EngineProcess> {
  return startEngineProcess({ directory, settings: settings() });
}

/** Six edit turns: enough history for a compaction to have something to summarise. */
function conversation(sessionId: string): SessionBuilder {
  const builder = session({ sessionId });
  return builder.editTurns(6);
}

async function seed(running: EngineProcess, builder: SessionBuilder): Promise<void> {
  const started = await running.request('POST', '/sessions', { sessionId: builder.header.id, cwd: '/w' });
  expect(started.status).toBe(201);
  const appended = await running.request('POST', `/sessions/${builder.header.id}/entries`, {
    entries: builder.entries,
  });
  expect(appended.status).toBe(200);
}

async function waitUntilCaughtUp(running: EngineProcess): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const ready = await running.request('GET', '/ready').catch((error: unknown) => {
      throw new Error(`the engine did not answer (${String(error)}); its stderr:\n${running.stderr()}`);
    });
    const behind = (ready.body as { checks?: { projections?: { positionsBehind?: string } } }).checks
      ?.projections?.positionsBehind;
    if (ready.status === 200 && behind === '0') return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the projections did not catch up');
}

/**
 * Kills the engine once `killWhen` resolves, with `work` (a request to it) in flight; says
 * whether the request had already been answered by then (the kill came after it).
 */
async function killDuring(
  work: Promise<unknown>,
  killWhen: Promise<void>,
): Promise<'in flight' | 'answered'> {
  let answered = false;
  const settled = work.then(
    () => (answered = true),
    () => undefined,
  );
  await Promise.race([killWhen, settled]);
  const when = answered ? 'answered' : 'in flight';
  expect(await engine?.kill('SIGKILL')).toBe('SIGKILL');
  engine = undefined;
  await settled;
  return when;
}

async function expectSoundStore(): Promise<Awaited<ReturnType<typeof storeHealth>>> {
  const health = await storeHealth(storeFileOf(directory));
  expect(health.integrity).toBe('ok');
  expect(health.brokenStreams).toBe(0);
  return health;
}

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'strata-crash-'));
  endpoint = await SummaryEndpoint.start();
});

afterAll(async () => {
  counts.report();
  await engine?.kill('SIGKILL');
  await endpoint.close();
  rmSync(directory, { recursive: true, force: true });
});

describe('the engine killed during a slow compaction, then started again', () => {
  const builder = conversation('crash-compaction');

  it('ends the interrupted attempt as failed (interrupted) and compacts normally afterwards', async () => {
    engine = await start();
    await seed(engine, builder);
    endpoint.behave({ kind: 'hang' });
    const before = endpoint.requests;
    const running = engine;
    const when = await killDuring(
      running.request('POST', '/sessions/crash-compaction/compact', { attemptId: 'killed-compaction' }),
      endpoint.received(before + 1),
    );
    expect(when).toBe('in flight');
    counts.record('kill points', ['compaction: summariser request in flight']);

    const afterKill = await expectSoundStore();
    expect(afterKill.openAttempts).toEqual(['killed-compaction']);

    endpoint.behave({ kind: 'summary', summary: '## Goal\n- finish the modules' });
    engine = await start();
    const health = await expectSoundStore();
    expect(health.openAttempts).toEqual([]);
    expect(
      health.attempts.find((attempt) => attempt.attemptId === 'killed-compaction')?.outcome,
    ).toMatchObject({
      type: 'CompactionFailed',
      data: { error: { code: 'interrupted' } },
    });
    await waitUntilCaughtUp(engine);
    const listed = await engine.request('GET', '/sessions/crash-compaction/attempts');
    expect(JSON.stringify(listed.body)).toContain('interrupted');

    const again = await engine.request('POST', '/sessions/crash-compaction/compact', {
      attemptId: 'after-restart',
    });
    expect(again).toMatchObject({ status: 200, body: { outcome: 'completed' } });
    const repeated = await engine.request('POST', '/sessions/crash-compaction/compact', {
      attemptId: 'killed-compaction',
    });
    expect(repeated).toMatchObject({ status: 200, body: { outcome: 'failed' } });
  });
});

describe('the engine killed during a branch summary, then started again', () => {
  const builder = conversation('crash-branch');

  it('ends the interrupted branch summary as failed (interrupted); the session stays usable', async () => {
    engine ??= await start();
    await seed(engine, builder);
    endpoint.behave({ kind: 'hang' });
    const before = endpoint.requests;
    const running = engine;
    const target = builder.entries[3]!.id;
    const when = await killDuring(
      running.request('POST', '/sessions/crash-branch/navigate', {
        targetId: target,
        summarize: true,
        attemptId: 'killed-branch',
      }),
      endpoint.received(before + 1),
    );
    expect(when).toBe('in flight');
    counts.record('kill points', ['branch summary: summariser request in flight']);
    expect((await expectSoundStore()).openAttempts).toEqual(['killed-branch']);

    endpoint.behave({ kind: 'summary', summary: '## Goal\n- the abandoned branch' });
    engine = await start();
    const health = await expectSoundStore();
    expect(health.openAttempts).toEqual([]);
    expect(health.attempts.find((attempt) => attempt.attemptId === 'killed-branch')?.outcome).toMatchObject({
      type: 'BranchSummaryFailed',
      data: { error: { code: 'interrupted' } },
    });
    const navigated = await engine.request('POST', '/sessions/crash-branch/navigate', {
      targetId: target,
      summarize: true,
    });
    expect(navigated.status).toBe(200);
  });
});

describe('the engine killed while importing a large session file, then started again', () => {
  /** About 9,000 entries (several MB): the import takes long enough to be killed inside. */
  function largeFile(sessionId: string): { text: string; entries: number } {
    const builder = session({ sessionId });
    for (let turn = 0; turn < 1_500; turn += 1) {
      builder
        .user(`Step ${turn}`)
        .assistantToolCalls([{ name: 'read', arguments: { path: `src/file-${turn}.ts` } }])
        .toolResult('read', `line ${turn}\n`.repeat(40))
        .assistant(`Read file ${turn}.`);
    }
    return { text: serializeSessionFile(builder.header, builder.entries), entries: builder.entries.length };
  }

  function upload(running: EngineProcess, text: string): Promise<{ status: number; text: string }> {
    return httpRequest('POST', `${running.url}/sessions/import`, {
      body: text,
      contentType: 'application/x-ndjson',
    });
  }

  /** Resolves at the first write to the store's write-ahead log from now on (polled every ms). */
  function nextWalWrite(): Promise<void> {
    const wal = `${storeFileOf(directory)}-wal`;
    const stamp = (): string => (existsSync(wal) ? `${statSync(wal).mtimeMs}/${statSync(wal).size}` : '');
    const baseline = stamp();
    const giveUpAt = Date.now() + 60_000;
    return new Promise((resolve) => {
      const timer = setInterval(() => {
        if (stamp() === baseline && Date.now() < giveUpAt) return;
        clearInterval(timer);
        resolve();
      }, 1);
      timer.unref();
    });
  }

  let importMs = 0;
  const afterFraction = (fraction: number) => () =>
    new Promise<void>((resolve) => setTimeout(resolve, Math.round(fraction * importMs)));

  // Kill points: fractions of how long a whole import of the same size takes here, and the
  // moment the import's transaction starts writing to the write-ahead log.
  const killPoints: readonly { readonly label: string; readonly when: () => Promise<void> }[] = [
    { label: '0.25 of an import', when: afterFraction(0.25) },
    { label: '0.9 of an import', when: afterFraction(0.9) },
    { label: 'its first write to the WAL', when: nextWalWrite },
    { label: '1.5 of an import', when: afterFraction(1.5) },
  ];

  beforeAll(async () => {
    engine ??= await start();
    const startedAt = performance.now();
    const calibration = await upload(engine, largeFile('crash-import-calibration').text);
    importMs = performance.now() - startedAt;
    expect(calibration.status).toBe(201);
  });

  it.each(killPoints.map((point, index) => ({ ...point, index })))(
    'killed at $label: the session is stored whole or not at all, and imports afterwards',
    async ({ label, when: killPoint, index }) => {
      const sessionId = `crash-import-${index}`;
      const file = largeFile(sessionId);
      engine ??= await start();
      const when = await killDuring(upload(engine, file.text), killPoint());

      const health = await expectSoundStore();
      const stored = health.sessions.includes(sessionId);
      if (when === 'answered') expect(stored).toBe(true);
      const seen =
        when === 'answered' ? 'killed after the answer' : stored ? 'stored whole' : 'nothing stored';
      counts.record('kill points', [
        `import, ${label} (a whole import took ${Math.round(importMs)} ms): ${seen}`,
      ]);
      engine = await start();
      const exported = await engine.request('GET', `/sessions/${sessionId}/export`);
      if (stored) {
        expect(exported.status).toBe(200);
        expect(exported.body).toBe(file.text);
      } else {
        expect(exported.status).toBe(404);
      }
      const imported = await upload(engine, file.text);
      expect(imported.status).toBe(stored ? 200 : 201);
      expect((await expectSoundStore()).sessions).toContain(sessionId);
    },
  );
});

describe('after every crash and restart', () => {
  it('the projections the engine kept through the crashes equal a rebuild from the log', async () => {
    engine ??= await start();
    await waitUntilCaughtUp(engine);
    expect(await engine.kill('SIGTERM')).not.toBe('SIGKILL');
    engine = undefined;
    const { kept, rebuilt } = await keptAndRebuiltProjections(storeFileOf(directory));
    expect(kept.catalog.length).toBeGreaterThanOrEqual(5);
    expect(kept.audit.length).toBeGreaterThanOrEqual(4);
    expect(kept).toEqual(rebuilt);
  });
});
