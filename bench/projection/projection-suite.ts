// Suite `projection` (issue 5): the context at the current leaf through the context projection
// against recomputing it from the stream, for generated sessions of 1,000 to 100,000 entries in
// a SQLite store; the memory a live session keeps; and the replay throughput of the durable
// projections (catalog and audit) against reading the whole log.
import * as path from 'node:path';
import { SqliteEventStore } from '@strata/event-store';
import { createProjectionSet, durableProjectionNames, sqliteProjectionStorage } from '@strata/projections';
import { charsPerFourCounter } from '@strata/session';
import {
  measureCases,
  type BenchCase,
  type BenchSuite,
  type CaseResult,
  type FigureGroup,
  type MeasureSettings,
} from '../harness';
import { generateSession } from '../context/generate-session';
import { liveSessionFigures, liveSessionMemory } from './live-session-memory';
import {
  contextCases,
  newContextProjection,
  recomputeFromStream,
  type LiveSession,
} from './projection-cases';
import { writeSession } from './session-streams';

const fullSizes = [1_000, 10_000, 100_000] as const;
const quickSizes = [1_000, 10_000] as const;

/**
 * Per session size: the largest reads the whole stream twice per round (seconds each, and the
 * ratio to the warm read is about 10^5), so it gets two rounds.
 */
function contextSettings(entries: number, quick: boolean): MeasureSettings {
  if (quick) return { warmupIterations: 1, iterations: 3, maxSeconds: 2, minIterations: 2 };
  if (entries >= 100_000) return { warmupIterations: 0, iterations: 2, maxSeconds: 0, minIterations: 2 };
  if (entries >= 10_000) return { warmupIterations: 1, iterations: 5, maxSeconds: 6, minIterations: 3 };
  return { warmupIterations: 2, iterations: 20, maxSeconds: 5, minIterations: 5 };
}

function replaySettings(quick: boolean): MeasureSettings {
  return quick
    ? { warmupIterations: 0, iterations: 1, maxSeconds: 1, minIterations: 1 }
    : { warmupIterations: 0, iterations: 3, maxSeconds: 10, minIterations: 2 };
}

async function countAllEvents(store: SqliteEventStore): Promise<number> {
  let count = 0;
  for await (const recorded of store.readAll()) if (recorded.type !== '') count += 1;
  return count;
}

function replayCases(
  store: SqliteEventStore,
  scratchDirectory: string,
  totalEvents: number,
): BenchCase<unknown>[] {
  const group = `replay of the whole log (${totalEvents.toLocaleString('en-US')} events)`;
  const details = { events: totalEvents };
  let round = 0;
  const readAll: BenchCase<void> = {
    name: 'projection/replay/read-all',
    group,
    role: 'baseline',
    label: 'read every event (readAll), nothing else',
    unit: 'event',
    operationsPerIteration: totalEvents,
    details,
    run: () => countAllEvents(store),
  };
  const rebuild: BenchCase<ReturnType<typeof createProjectionSet>> = {
    name: 'projection/replay/rebuild-catalog-audit',
    group,
    role: 'subject',
    label: 'runner.rebuild() of catalog + audit (SQLite documents)',
    unit: 'event',
    operationsPerIteration: totalEvents,
    details,
    setup: () => {
      round += 1;
      return createProjectionSet({
        store,
        storage: sqliteProjectionStorage(path.join(scratchDirectory, `projections-${round}.db`)),
        tokenCounter: charsPerFourCounter,
        include: durableProjectionNames,
      });
    },
    run: (set) => set.runner.rebuild(),
  };
  return [readAll, rebuild] as BenchCase<unknown>[];
}

export const projectionSuite: BenchSuite = {
  name: 'projection',
  title: 'Read side: the context projection against recomputing from the stream; replay throughput',
  async run(context) {
    const { progress, scratchDirectory, quick } = context;
    const sizes = quick ? quickSizes : fullSizes;
    const store = new SqliteEventStore({ filename: path.join(scratchDirectory, 'projection-bench.db') });
    const cases: CaseResult[] = [];
    const datasets: Record<string, unknown>[] = [];
    const figures: FigureGroup[] = [];
    try {
      for (const entryCount of sizes) {
        progress.step('projection', `generating and writing a session of ${entryCount} entries`);
        const generatedAt = process.hrtime.bigint();
        const session = generateSession({ entryCount });
        const generateMs = Number(process.hrtime.bigint() - generatedAt) / 1e6;
        const written = await writeSession(store, session);
        const memory = await liveSessionMemory(store, written);
        const memoryFigures = liveSessionFigures(memory);
        if (memoryFigures !== null) figures.push(memoryFigures);
        const live: LiveSession = {
          store,
          written,
          projection: newContextProjection(store),
          leafId: written.leafId,
          appended: 0,
        };
        await live.projection.contextAt(written.sessionId);
        const settings = contextSettings(entryCount, quick);
        cases.push(...(await measureCases('projection', contextCases(live), settings, progress)));
        const projected = await live.projection.contextAt(written.sessionId);
        const recomputed = await recomputeFromStream(store, written.sessionId);
        if (
          projected.tokens !== recomputed.tokens ||
          projected.context.messages.length !== recomputed.messages
        ) {
          throw new Error(
            `projection and recomputation disagree at ${entryCount} entries: ` +
              `${projected.context.messages.length}/${projected.tokens} vs ${recomputed.messages}/${recomputed.tokens}`,
          );
        }
        datasets.push({
          entries: written.entryCount,
          events: written.eventCount,
          compactions: session.compactionCount,
          branches: session.branchCount,
          generateMs: Math.round(generateMs),
          writeMs: Math.round(written.writeMs),
          leafContextMessages: recomputed.messages,
          leafContextTokensChars4: recomputed.tokens,
          entriesAppendedDuringMeasurement: live.appended,
          settings,
          liveSession: memory,
          contextCacheStats: live.projection.stats(),
        });
        progress.step(
          'projection',
          `live session of ${memory.entries} entries: hydrated in ${memory.hydrationMs} ms, ` +
            `${memory.retainedBytes ?? '?'} bytes held (${memory.bytesPerEntry ?? '?'} bytes/entry); ` +
            `its entries alone ${memory.parsedEntriesBytes ?? '?'} bytes, its events as stored ${memory.storedBytes} bytes`,
        );
      }
      const totalEvents = await countAllEvents(store);
      cases.push(
        ...(await measureCases(
          'projection',
          replayCases(store, scratchDirectory, totalEvents),
          replaySettings(quick),
          progress,
        )),
      );
      return {
        cases,
        figures,
        notices: [
          'Both sides count tokens with chars/4 (the reference heuristic), so the comparison is of the ' +
            'work, not of the tokenizer; the engine counts o200k, where hydration costs far more.',
        ],
        facts: { datasets, replayEvents: totalEvents, replaySettings: replaySettings(quick) },
      };
    } finally {
      await store.close();
    }
  },
};
