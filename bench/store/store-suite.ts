// Suite `store` (issue 3): appends one at a time and in batches of 10 and 100, stream reads
// and global reads, for the SQLite adapter next to raw better-sqlite3 on the same rows, and for
// the EventStoreDB adapter next to the bare client, over the in-process protocol test server;
// and one engine command appending to a long session, with the write side's fold cache and
// without it.
import { measureCases, type BenchSuite, type CaseResult, type MeasureSettings } from '../harness';
import { esdbAppendCases, esdbReadCases, esdbReadFixture } from './esdb-cases';
import { entryPayloads, planEvents, smallPayloads } from './event-batches';
import { sqliteAppendCases, sqliteReadCases, sqliteReadFixture } from './sqlite-cases';
import { anchorAppendFixture } from './anchor-append-cases';
import { sessionAppendFixture } from './session-append-cases';
import { serialisationShare } from './store-profile';

const EVENTS_PER_STREAM = 1_000;
const batchSizes = [1, 10, 100] as const;
type BatchSize = (typeof batchSizes)[number];

interface StorePlanSizes {
  /** Events appended per timed iteration, by batch size. */
  readonly sqliteAppendEvents: Readonly<Record<BatchSize, number>>;
  readonly sqliteSmallEvents: number;
  readonly sqliteReadEvents: number;
  readonly esdbAppendEvents: Readonly<Record<BatchSize, number>>;
  readonly esdbReadEvents: number;
  /** Sizes of the sessions one command appends to. */
  readonly sessionAppendEntries: readonly number[];
  /** Sessions the anchor group's spread appends go round. */
  readonly anchorSessions: number;
}

interface StoreSettings {
  readonly append: MeasureSettings;
  readonly esdbAppend: MeasureSettings;
  readonly read: MeasureSettings;
  readonly esdbRead: MeasureSettings;
  readonly sessionAppend: MeasureSettings;
  readonly anchorAppend: MeasureSettings;
}

const fullSizes: StorePlanSizes = {
  sqliteAppendEvents: { 1: 1_000, 10: 3_000, 100: 6_000 },
  sqliteSmallEvents: 10_000,
  sqliteReadEvents: 20_000,
  esdbAppendEvents: { 1: 200, 10: 1_000, 100: 2_000 },
  esdbReadEvents: 3_000,
  sessionAppendEntries: [1_000, 10_000],
  anchorSessions: 2_000,
};

const quickSizes: StorePlanSizes = {
  sqliteAppendEvents: { 1: 500, 10: 2_000, 100: 4_000 },
  sqliteSmallEvents: 4_000,
  sqliteReadEvents: 4_000,
  esdbAppendEvents: { 1: 200, 10: 1_000, 100: 2_000 },
  esdbReadEvents: 2_000,
  sessionAppendEntries: [1_000],
  anchorSessions: 500,
};

const fullSettings: StoreSettings = {
  append: { warmupIterations: 1, iterations: 11, maxSeconds: 8, minIterations: 5 },
  esdbAppend: { warmupIterations: 1, iterations: 5, maxSeconds: 5, minIterations: 4 },
  read: { warmupIterations: 2, iterations: 20, maxSeconds: 6, minIterations: 5 },
  esdbRead: { warmupIterations: 1, iterations: 6, maxSeconds: 6, minIterations: 4 },
  sessionAppend: { warmupIterations: 2, iterations: 20, maxSeconds: 5, minIterations: 5 },
  anchorAppend: { warmupIterations: 3, iterations: 60, maxSeconds: 12, minIterations: 20 },
};

const quickSettings: StoreSettings = {
  append: { warmupIterations: 1, iterations: 3, maxSeconds: 3, minIterations: 2 },
  esdbAppend: { warmupIterations: 1, iterations: 2, maxSeconds: 2, minIterations: 2 },
  read: { warmupIterations: 1, iterations: 5, maxSeconds: 2, minIterations: 3 },
  esdbRead: { warmupIterations: 1, iterations: 3, maxSeconds: 2, minIterations: 2 },
  sessionAppend: { warmupIterations: 1, iterations: 5, maxSeconds: 2, minIterations: 3 },
  anchorAppend: { warmupIterations: 1, iterations: 6, maxSeconds: 3, minIterations: 4 },
};

const TEST_SERVER_NOTICE =
  'EventStoreDB figures are over the in-process protocol test server (a TEST FIXTURE holding events in memory), ' +
  'not a real EventStoreDB node: they show the client and adapter overhead over gRPC on loopback only.';

export const storeSuite: BenchSuite = {
  name: 'store',
  title:
    'Event store: SQLite adapter vs raw better-sqlite3, EventStoreDB adapter vs bare client (test server)',
  async run(context) {
    const { progress, scratchDirectory, quick } = context;
    const sizes = quick ? quickSizes : fullSizes;
    const settings = quick ? quickSettings : fullSettings;
    progress.step('store', 'generating event payloads');
    const payloads = entryPayloads(5_000);
    const cases: CaseResult[] = [];
    const facts: Record<string, unknown> = { eventsPerStream: EVENTS_PER_STREAM, sizes, settings };

    for (const batchSize of batchSizes) {
      const plan = planEvents(
        payloads,
        sizes.sqliteAppendEvents[batchSize],
        batchSize,
        EVENTS_PER_STREAM,
        batchSize,
      );
      cases.push(
        ...(await measureCases(
          'store',
          sqliteAppendCases(plan, scratchDirectory),
          settings.append,
          progress,
        )),
      );
      if (batchSize === 100) facts.jsonSerialisation = serialisationShare(plan);
    }
    const smallPlan = planEvents(smallPayloads(100), sizes.sqliteSmallEvents, 100, EVENTS_PER_STREAM, 3);
    const small = { name: 'small', description: 'small' };
    cases.push(
      ...(await measureCases(
        'store',
        sqliteAppendCases(smallPlan, scratchDirectory, small),
        settings.append,
        progress,
      )),
    );

    for (const entryCount of sizes.sessionAppendEntries) {
      progress.step('store', `writing three sessions of ${entryCount} entries for the session-append group`);
      const fixture = await sessionAppendFixture(entryCount, scratchDirectory);
      try {
        cases.push(...(await measureCases('store', fixture.cases, settings.sessionAppend, progress)));
      } finally {
        await fixture.close();
      }
    }

    progress.step('store', `starting ${sizes.anchorSessions + 3} sessions for the anchor groups`);
    const anchorFixture = await anchorAppendFixture(scratchDirectory, sizes.anchorSessions);
    try {
      cases.push(...(await measureCases('store', anchorFixture.cases, settings.anchorAppend, progress)));
      const appendsMeasured =
        (settings.anchorAppend.warmupIterations + settings.anchorAppend.iterations) * 50;
      facts.anchorSignatures = { ...anchorFixture.signatures(), appendsPerCaseAtMost: appendsMeasured };
    } finally {
      await anchorFixture.close();
    }

    const readPlan = planEvents(payloads, sizes.sqliteReadEvents, 100, EVENTS_PER_STREAM, 1);
    const sqliteReads = await sqliteReadFixture(readPlan, scratchDirectory);
    try {
      cases.push(
        ...(await measureCases(
          'store',
          sqliteReadCases(sqliteReads, EVENTS_PER_STREAM),
          settings.read,
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
      cases.push(...(await measureCases('store', esdbAppendCases(plan), settings.esdbAppend, progress)));
    }
    const esdbPlan = planEvents(payloads, sizes.esdbReadEvents, 100, EVENTS_PER_STREAM, 2);
    const esdbReads = await esdbReadFixture(esdbPlan);
    try {
      cases.push(
        ...(await measureCases(
          'store',
          esdbReadCases(esdbReads, EVENTS_PER_STREAM),
          settings.esdbRead,
          progress,
        )),
      );
    } finally {
      await esdbReads.close();
    }
    return { cases, notices: [TEST_SERVER_NOTICE], facts };
  },
};
