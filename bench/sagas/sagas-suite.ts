// Suite `sagas` (issue 12): fifty sessions cross the compaction threshold together, a scripted
// summariser answering each call after 2 s. Measured: the time until every automatic compaction
// has completed, and for each session the time from the answer that crossed the threshold to
// its `CompactionStarted` (both store timestamps), with the engine's default concurrency (16
// summary slots) next to concurrency 1 — one event, one summary at a time, as the saga runner
// was before it was partitioned — in the same run.
import * as path from 'node:path';
import { CommandBus } from '@nestjs/cqrs';
import { Test } from '@nestjs/testing';
import { SqliteEventStore, type EventStore, type RecordedEvent } from '@strata/event-store';
import { sessionStreamName, type SessionEntry } from '@strata/session';
import { ScriptedSummarizer, session } from '@strata/testing';
import { DEFAULT_SAGA_CONCURRENCY } from '../../apps/engine/src/config/engine-config';
import { EngineModule } from '../../apps/engine/src/sessions/engine.module';
import { SESSIONS_PER_SUMMARY_SLOT, SagaRunner } from '../../apps/engine/src/sagas/saga-runner.service';
import { SagasModule } from '../../apps/engine/src/sagas/sagas.module';
import { AppendEntriesCommand } from '../../apps/engine/src/sessions/append-entries/append-entries.command';
import { StartSessionCommand } from '../../apps/engine/src/sessions/start-session/start-session.command';
import type { EngineSettingsInput } from '../../apps/engine/src/settings/engine-settings.schema';
import {
  formatMilliseconds,
  percentile,
  type BenchSuite,
  type FigureGroup,
  type SummaryTable,
} from '../harness';

const SUMMARY_LATENCY_MS = 2_000;
const settings = {
  tokenizer: 'chars4',
  compaction: { keepRecentTokens: 250, reserveTokens: 2000 },
  models: { defaultContextWindow: 10_000 },
  summarizer: { retry: { maxRetries: 0 } },
} satisfies EngineSettingsInput;

const quietLogger = { log() {}, warn() {}, error() {}, debug() {}, verbose() {} };

interface RunResult {
  readonly concurrency: number;
  readonly sessions: number;
  /** From the first crossing answer stored to the last compaction completed. */
  readonly totalMs: number;
  /** Per session: crossing answer → CompactionStarted (store timestamps). */
  readonly startDelaysMs: readonly number[];
  /** Per session: crossing answer → CompactionCompleted. */
  readonly completionDelaysMs: readonly number[];
  readonly summaryCalls: number;
}

function usageOver(tokens: number) {
  return { input: tokens - 100, output: 100, cacheRead: 0, cacheWrite: 0, totalTokens: tokens };
}

async function eventsOf(store: EventStore, sessionId: string): Promise<RecordedEvent[]> {
  const events: RecordedEvent[] = [];
  for await (const event of store.readStream(sessionStreamName(sessionId))) events.push(event);
  return events;
}

function msOf(event: RecordedEvent | undefined): number {
  if (event === undefined) throw new Error('an expected event is missing');
  return Date.parse(event.createdAt);
}

async function runOnce(
  concurrency: number,
  sessions: number,
  directory: string,
  step: (message: string) => void,
): Promise<RunResult> {
  const store = new SqliteEventStore({ filename: path.join(directory, `sagas-${concurrency}.db`) });
  const summarizer = new ScriptedSummarizer({
    reply: async (request) => {
      await new Promise((resolve) => setTimeout(resolve, SUMMARY_LATENCY_MS));
      return `## Goal\n- go on (${request.purpose})`;
    },
  });
  const module = await Test.createTestingModule({
    imports: [
      EngineModule.forRoot({
        store,
        settings,
        summarizers: [summarizer],
        environment: {},
        summarySlots: { concurrency, maxPerTenant: concurrency },
      }),
      SagasModule.forRoot({ concurrency: concurrency === 1 ? 1 : SESSIONS_PER_SUMMARY_SLOT * concurrency }),
    ],
  })
    .setLogger(quietLogger)
    .compile();
  await module.init();
  try {
    const commands = module.get(CommandBus);
    const sagas = module.get(SagaRunner);
    const sessionIds = Array.from({ length: sessions }, (_unused, index) => `crossing-${index}`);
    const crossing = new Map<string, SessionEntry[]>();
    for (const sessionId of sessionIds) {
      const builder = session({ sessionId }).editTurns(6);
      const before = builder.entries.length;
      builder.user('One more step').assistant('Done.', { usage: usageOver(8500) });
      await commands.execute(new StartSessionCommand({ sessionId, cwd: builder.header.cwd }));
      await commands.execute(new AppendEntriesCommand(sessionId, builder.entries.slice(0, before)));
      crossing.set(sessionId, builder.entries.slice(before));
    }
    await sagas.drain();
    step(`concurrency ${concurrency}: ${sessions} sessions seeded under the threshold; crossing it together`);
    await Promise.all(
      sessionIds.map((sessionId) =>
        commands.execute(new AppendEntriesCommand(sessionId, crossing.get(sessionId)!)),
      ),
    );
    for (let done = 0; done < sessions;) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      const completed = await Promise.all(
        sessionIds.map(async (sessionId) =>
          (await eventsOf(store, sessionId)).some((event) => event.type === 'CompactionCompleted'),
        ),
      );
      const now = completed.filter(Boolean).length;
      if (now !== done) step(`concurrency ${concurrency}: ${now} of ${sessions} compactions completed`);
      done = now;
    }
    const crossedAt: number[] = [];
    const startedAt: number[] = [];
    const completedAt: number[] = [];
    for (const sessionId of sessionIds) {
      const events = await eventsOf(store, sessionId);
      const answerId = crossing.get(sessionId)![1]!.id;
      const answer = events.find(
        (event) =>
          event.type === 'EntryAppended' && (event.data as { entry: { id: string } }).entry.id === answerId,
      );
      crossedAt.push(msOf(answer));
      startedAt.push(msOf(events.find((event) => event.type === 'CompactionStarted')));
      completedAt.push(msOf(events.find((event) => event.type === 'CompactionCompleted')));
    }
    return {
      concurrency,
      sessions,
      totalMs: Math.max(...completedAt) - Math.min(...crossedAt),
      startDelaysMs: startedAt.map((at, index) => at - crossedAt[index]!),
      completionDelaysMs: completedAt.map((at, index) => at - crossedAt[index]!),
      summaryCalls: summarizer.calls.length,
    };
  } finally {
    await module.close();
    await store.close();
  }
}

function percentileOf(values: readonly number[], fraction: number): number {
  return percentile(
    [...values].sort((left, right) => left - right),
    fraction,
  );
}

function figures(subject: RunResult, baseline: RunResult): FigureGroup[] {
  const label = (run: RunResult): string =>
    run === baseline
      ? 'concurrency 1 (one event at a time, as before)'
      : `concurrency ${run.concurrency} (default)`;
  return [
    {
      title: `every automatic compaction completed, ${subject.sessions} sessions crossing together (2 s per summary call)`,
      unit: 'ms',
      lowerIsBetter: true,
      rows: [baseline, subject].map((run) => ({
        label: label(run),
        role: run === baseline ? 'baseline' : 'subject',
        value: run.totalMs,
        display: formatMilliseconds(run.totalMs),
      })),
    },
    {
      title: 'p99 from the answer crossing the threshold to CompactionStarted',
      unit: 'ms',
      lowerIsBetter: true,
      rows: [baseline, subject].map((run) => {
        const p99 = percentileOf(run.startDelaysMs, 0.99);
        return {
          label: label(run),
          role: run === baseline ? 'baseline' : 'subject',
          value: p99,
          display: formatMilliseconds(p99),
        };
      }),
    },
  ];
}

function table(runs: readonly RunResult[]): SummaryTable {
  return {
    title: 'sessions crossing the compaction threshold together',
    columns: [
      'concurrency',
      'sessions',
      'all completed',
      'start p50',
      'start p99',
      'completed p50',
      'completed p99',
      'summary calls',
    ],
    numericColumns: [1, 2, 3, 4, 5, 6, 7],
    rows: runs.map((run) => [
      String(run.concurrency),
      String(run.sessions),
      formatMilliseconds(run.totalMs),
      formatMilliseconds(percentileOf(run.startDelaysMs, 0.5)),
      formatMilliseconds(percentileOf(run.startDelaysMs, 0.99)),
      formatMilliseconds(percentileOf(run.completionDelaysMs, 0.5)),
      formatMilliseconds(percentileOf(run.completionDelaysMs, 0.99)),
      String(run.summaryCalls),
    ]),
  };
}

export const sagasSuite: BenchSuite = {
  name: 'sagas',
  title: 'Automatic compaction of sessions crossing the threshold together, against one at a time',
  async run(context) {
    const { progress, scratchDirectory, quick } = context;
    const sessions = quick ? 10 : 50;
    const step = (message: string): void => progress.step('sagas', message);
    const subject = await runOnce(DEFAULT_SAGA_CONCURRENCY, sessions, scratchDirectory, step);
    const baseline = await runOnce(1, sessions, scratchDirectory, step);
    const speedup = baseline.totalMs / subject.totalMs;
    const p99Start = percentileOf(subject.startDelaysMs, 0.99);
    return {
      cases: [],
      notices: [
        `Speed-up at concurrency ${DEFAULT_SAGA_CONCURRENCY}: ×${speedup.toFixed(1)} (goal: at least ×10); ` +
          `p99 answer → CompactionStarted ${formatMilliseconds(p99Start)} (goal: under 1 s).`,
        'Engine and summariser run in this process (the summariser only waits): the figures are the scheduling of ' +
          'the sagas and summary slots, with store timestamps (millisecond resolution).',
      ],
      figures: figures(subject, baseline),
      tables: [table([subject, baseline])],
      facts: {
        summaryLatencyMs: SUMMARY_LATENCY_MS,
        sessions,
        summaryCallsPerCompaction: subject.summaryCalls / sessions,
        speedup,
        p99StartMs: p99Start,
        goalsMet: { speedup: speedup >= 10, p99Start: p99Start < 1_000 },
      },
    };
  },
};
