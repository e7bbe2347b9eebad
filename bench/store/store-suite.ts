// Suite `store` (issue 3): appends one at a time and in batches of 10 and 100, stream reads
// and global reads, for the SQLite adapter next to raw better-sqlite3 on the same rows, and for
// the EventStoreDB adapter next to the bare client, over the in-process protocol test server.
import { measureCases, type BenchSuite, type CaseResult, type MeasureSettings } from '../harness';
import { esdbAppendCases, esdbReadCases, esdbReadFixture } from './esdb-cases';
import { entryPayloads, planEvents } from './event-batches';
import { sqliteAppendCases, sqliteReadCases, sqliteReadFixture } from './sqlite-cases';
import { serialisationShare } from './store-profile';

const EVENTS_PER_STREAM = 1_000;

interface StoreSizes {
  readonly sqliteAppendEvents: Readonly<Record<1 | 10 | 100, number>>;
  readonly sqliteReadEvents: number;
  readonly esdbAppendEvents: Readonly<Record<1 | 10 | 100, number>>;
  readonly esdbReadEvents: number;
}

const fullSizes: StoreSizes = {
  sqliteAppendEvents: { 1: 2_000, 10: 10_000, 100: 20_000 },
  sqliteReadEvents: 20_000,
  esdbAppendEvents: { 1: 300, 10: 1_500, 100: 3_000 },
  esdbReadEvents: 3_000,
};

const quickSizes: StoreSizes = {
  sqliteAppendEvents: { 1: 1_000, 10: 2_000, 100: 4_000 },
  sqliteReadEvents: 4_000,
  esdbAppendEvents: { 1: 200, 10: 1_000, 100: 2_000 },
  esdbReadEvents: 2_000,
};

const batchSizes = [1, 10, 100] as const;

export const storeSuite: BenchSuite = {
  name: 'store',
  title:
    'Event store: appends and reads, SQLite adapter vs raw better-sqlite3, EventStoreDB adapter vs bare client',
  async run(context) {
    const { progress, scratchDirectory, quick } = context;
    const sizes = quick ? quickSizes : fullSizes;
    const appendSettings: MeasureSettings = quick
      ? { warmupIterations: 1, iterations: 3, maxSeconds: 3, minIterations: 2 }
      : { warmupIterations: 1, iterations: 9, maxSeconds: 20, minIterations: 5 };
    const readSettings: MeasureSettings = quick
      ? { warmupIterations: 1, iterations: 5, maxSeconds: 2, minIterations: 3 }
      : { warmupIterations: 2, iterations: 20, maxSeconds: 10, minIterations: 5 };
    const esdbReadSettings: MeasureSettings = quick
      ? { warmupIterations: 1, iterations: 3, maxSeconds: 2, minIterations: 2 }
      : { warmupIterations: 1, iterations: 7, maxSeconds: 12, minIterations: 4 };
    progress.step('store', 'generating event payloads');
    const payloads = entryPayloads(5_000);
    const cases: CaseResult[] = [];
    const notices: string[] = [];
    const facts: Record<string, unknown> = {
      eventsPerStream: EVENTS_PER_STREAM,
      sizes,
      appendSettings,
      readSettings,
    };

    for (const batchSize of batchSizes) {
      const plan = planEvents(
        payloads,
        sizes.sqliteAppendEvents[batchSize],
        batchSize,
        EVENTS_PER_STREAM,
        batchSize,
      );
      cases.push(
        ...(await measureCases('store', sqliteAppendCases(plan, scratchDirectory), appendSettings, progress)),
      );
      if (batchSize === 100) facts.jsonSerialisation = serialisationShare(plan);
    }
    const readPlan = planEvents(payloads, sizes.sqliteReadEvents, 100, EVENTS_PER_STREAM, 1);
    const sqliteReads = await sqliteReadFixture(readPlan, scratchDirectory);
    try {
      cases.push(
        ...(await measureCases(
          'store',
          sqliteReadCases(sqliteReads, EVENTS_PER_STREAM),
          readSettings,
          progress,
        )),
      );
    } finally {
      await sqliteReads.close();
    }

    for (const batchSize of batchSizes) {
      const plan = planEvents(
        payloads,
        sizes.esdbAppendEvents[batchSize],
        batchSize,
        EVENTS_PER_STREAM,
        10 + batchSize,
      );
      cases.push(...(await measureCases('store', esdbAppendCases(plan), appendSettings, progress)));
    }
    const esdbPlan = planEvents(payloads, sizes.esdbReadEvents, 100, EVENTS_PER_STREAM, 2);
    const esdbReads = await esdbReadFixture(esdbPlan);
    try {
      cases.push(
        ...(await measureCases(
          'store',
          esdbReadCases(esdbReads, EVENTS_PER_STREAM),
          esdbReadSettings,
          progress,
        )),
      );
    } finally {
      await esdbReads.close();
    }
    notices.push(
      'EventStoreDB figures are over the in-process protocol test server (a TEST FIXTURE holding events in memory), ' +
        'not a real EventStoreDB node: they show the client and adapter overhead over gRPC on loopback only.',
    );
    return { cases, notices, facts };
  },
};
