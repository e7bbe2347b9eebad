// Suite `projection` (issue 5): the context at the current leaf through the context projection
// against recomputing it from the stream, for generated sessions of 1,000 to 100,000 entries in
// a SQLite store; the memory a live session keeps; the first context of a 3,000-message session
// after a restart, in this process and through the engine (restart-cases.ts); and `strata replay`
// of a store of 200,000 events against a bare SELECT of every event (replay-cases.ts).
import * as path from 'node:path';
import { SqliteEventStore } from '@strata/event-store';
import {
  measureCases,
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
import { checkpointReplayStore, replayCases } from './replay-cases';
import {
  assertRestartAgreement,
  engineRestartFigures,
  engineRestartTimings,
  primeStoredCounts,
  restartCases,
  writeRestartStore,
} from './restart-cases';
import { writeReplayStore } from './replay-store';
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

/** A cold read takes a few hundred milliseconds: enough rounds for a median under load. */
function restartSettings(quick: boolean): MeasureSettings {
  return quick
    ? { warmupIterations: 1, iterations: 3, maxSeconds: 2, minIterations: 2 }
    : { warmupIterations: 2, iterations: 20, maxSeconds: 8, minIterations: 8 };
}

/** Engine starts per condition (counts deleted, counts stored). */
function engineRestarts(quick: boolean): number {
  return quick ? 2 : 7;
}

/** Events in the replay store: the 200,000 (20,000 in a quick run). */
function replayEvents(quick: boolean): number {
  return quick ? 20_000 : 200_000;
}

/** A replay of 200,000 events takes seconds: two rounds, interleaved with the baselines. */
function replaySettings(quick: boolean): MeasureSettings {
  return quick
    ? { warmupIterations: 0, iterations: 1, maxSeconds: 1, minIterations: 1 }
    : { warmupIterations: 0, iterations: 2, maxSeconds: 0, minIterations: 2 };
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
            `its entries alone ${memory.parsedEntriesBytes ?? '?'} bytes, its events as stored ${memory.storedBytes} bytes; ` +
            `projection and write-side fold together ${memory.bothSidesBytes ?? '?'} bytes`,
        );
      }
      progress.step('projection', 'importing a session of 3,000 messages for the restart cases');
      const restartStore = await writeRestartStore(scratchDirectory);
      await primeStoredCounts(restartStore.file);
      await assertRestartAgreement(restartStore.file);
      cases.push(
        ...(await measureCases('projection', restartCases(restartStore), restartSettings(quick), progress)),
      );
      const engineTimings = await engineRestartTimings(
        restartStore,
        scratchDirectory,
        engineRestarts(quick),
        progress,
      );
      figures.push(engineRestartFigures(engineTimings, restartStore.messages));
      progress.step('projection', `writing a store of ${replayEvents(quick)} events for the replay cases`);
      const storeFile = path.join(scratchDirectory, 'replay-bench.db');
      const replayStore = await writeReplayStore(storeFile, replayEvents(quick));
      const keys = await checkpointReplayStore(storeFile);
      cases.push(
        ...(await measureCases(
          'projection',
          replayCases({ storeFile, scratchDirectory, events: replayStore.events, keys }),
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
        facts: {
          datasets,
          restart: { ...restartStore, settings: restartSettings(quick), engineTimings },
          replayStore,
          replaySettings: replaySettings(quick),
        },
      };
    } finally {
      await store.close();
    }
  },
};
