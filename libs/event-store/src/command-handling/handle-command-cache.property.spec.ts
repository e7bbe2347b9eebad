import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { createSealingAppender, verifyStream } from '@strata/integrity';
import { InMemoryEventStore } from '../memory/in-memory-event-store';
import type { EventStore } from '../port';
import { SqliteEventStore } from '../sqlite/sqlite-event-store';
import {
  parseShelfEvent,
  rawShelfAppend,
  rivalBeforeNextAppend,
  shelfDecider,
  shelfOf,
  type ShelfCommand,
  type ShelfEvent,
  type ShelfState,
} from './cache-spec-support';
import { derivedEventId } from './derived-event-id';
import { FoldedStreamCache } from './folded-stream-cache';
import { handleCommand, type CommandHandled } from './handle-command';

/** One fixed clock for every seal: runs compared event for event seal the same times. */
const sealingAppender = createSealingAppender({}, { now: () => new Date('2026-01-01T00:00:00.000Z') });

const STREAM = 'shelf-1';

/** One step of a run: our (possibly cached) command, another writer's command or raw event, or an erasure. */
type Step =
  | {
      readonly kind: 'ours';
      readonly command: ShelfCommand;
      readonly seed: string;
      readonly loseRace: boolean;
    }
  | { readonly kind: 'theirs'; readonly command: ShelfCommand; readonly seed: string }
  | { readonly kind: 'raw'; readonly item: string; readonly seed: string }
  | { readonly kind: 'erase' };

const itemArbitrary = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h');
const commandArbitrary: fc.Arbitrary<ShelfCommand> = fc.oneof(
  { weight: 6, arbitrary: itemArbitrary.map((item): ShelfCommand => ({ type: 'Add', item })) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(itemArbitrary, itemArbitrary)
      .map(([first, second]): ShelfCommand => ({ type: 'AddTwo', first, second })),
  },
  { weight: 1, arbitrary: fc.constant<ShelfCommand>({ type: 'Nothing' }) },
);
/** Seeds from a small pool repeat (redeliveries); the others are fresh. */
const seedArbitrary = fc.oneof(fc.constantFrom('s0', 's1', 's2'), fc.uuid());
const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant('ours' as const),
      command: commandArbitrary,
      seed: seedArbitrary,
      loseRace: fc.boolean(),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('theirs' as const),
      command: commandArbitrary,
      seed: seedArbitrary,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('raw' as const), item: itemArbitrary, seed: seedArbitrary }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'erase' as const }) },
);

type Outcome = CommandHandled<ShelfEvent, ShelfState> | { readonly error: string } | undefined;

async function outcomeOf(run: () => Promise<Outcome | void>): Promise<Outcome> {
  try {
    return (await run()) ?? undefined;
  } catch (error) {
    return { error: `${(error as Error).name}: ${(error as Error).message}` };
  }
}

/** Runs the steps; our commands go through `cache` when one is given. */
async function runSteps(
  store: EventStore,
  steps: readonly Step[],
  cache: FoldedStreamCache<ShelfState> | undefined,
): Promise<Outcome[]> {
  let rivals = 0;
  const rival = rivalBeforeNextAppend(store, STREAM, () => `rival-${(rivals += 1)}`);
  // The same write ids in both runs, so that the stores hold the same events (and hashes).
  let writes = 0;
  const newWriteId = (): string => `write-${(writes += 1)}`;
  const outcomes: Outcome[] = [];
  for (const step of steps) {
    switch (step.kind) {
      case 'ours':
        if (step.loseRace) rival.arm();
        outcomes.push(
          await outcomeOf(() =>
            handleCommand(rival.store, STREAM, step.command, shelfDecider, {
              parseEvent: parseShelfEvent,
              appender: sealingAppender,
              idSeed: step.seed,
              newWriteId,
              ...(cache !== undefined ? { cache } : {}),
            }),
          ),
        );
        break;
      case 'theirs':
        outcomes.push(
          await outcomeOf(() =>
            handleCommand(store, STREAM, step.command, shelfDecider, {
              parseEvent: parseShelfEvent,
              appender: sealingAppender,
              idSeed: step.seed,
              newWriteId,
            }),
          ),
        );
        break;
      case 'raw':
        outcomes.push(
          await outcomeOf(() => rawShelfAppend(store, STREAM, step.item, derivedEventId(step.seed, 0))),
        );
        break;
      case 'erase':
        outcomes.push(
          await outcomeOf(async () => void (await store.eraseStream(STREAM, { actor: 't', reason: 'r' }))),
        );
        break;
      default: {
        const unhandled: never = step;
        throw new Error(`unhandled step ${JSON.stringify(unhandled)}`);
      }
    }
  }
  return outcomes;
}

async function storedEvents(store: EventStore): Promise<unknown[]> {
  const events: unknown[] = [];
  for await (const { id, type, data, revision, metadata } of store.readStream(STREAM)) {
    events.push({ id, type, data, revision, hash: metadata['hash'] });
  }
  return events;
}

const stepsArbitrary = fc.array(stepArbitrary, { minLength: 1, maxLength: 30 });

async function expectSameAsWithoutCache(
  openStore: () => EventStore,
  steps: readonly Step[],
  maxStreams: number,
): Promise<void> {
  const withCache = openStore();
  const without = openStore();
  try {
    const cache = new FoldedStreamCache<ShelfState>({ maxStreams });
    const cached = await runSteps(withCache, steps, cache);
    const uncached = await runSteps(without, steps, undefined);
    expect(cached).toEqual(uncached);
    expect(await storedEvents(withCache)).toEqual(await storedEvents(without));
    expect((await verifyStream(withCache, STREAM)).ok).toBe(true);
  } finally {
    await Promise.all([withCache.close(), without.close()]);
  }
}

describe('handleCommand with and without a folded-stream cache', () => {
  describe('given random commands, other writers, lost races, redeliveries and erasures', () => {
    it('gives the same results and stores the same events (in memory)', async () => {
      await fc.assert(
        fc.asyncProperty(stepsArbitrary, (steps) =>
          expectSameAsWithoutCache(() => new InMemoryEventStore(), steps, 1_000),
        ),
        { numRuns: 60 },
      );
    });

    it('gives the same results and stores the same events (SQLite)', async () => {
      await fc.assert(
        fc.asyncProperty(stepsArbitrary, (steps) =>
          expectSameAsWithoutCache(() => new SqliteEventStore({ filename: ':memory:' }), steps, 1_000),
        ),
        { numRuns: 25 },
      );
    });
  });

  describe('given truly concurrent writers, two of them with caches of their own on one SQLite file', () => {
    let directory: string;
    beforeEach(() => {
      directory = mkdtempSync(join(tmpdir(), 'strata-fold-cache-'));
    });
    afterEach(() => rmSync(directory, { recursive: true, force: true }));

    it('loses and duplicates nothing, and every result is the fold of the stream at its revision', async () => {
      let runs = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.constantFrom(0, 1, 2), { minLength: 2, maxLength: 16 }),
          fc.integer({ min: 0, max: 5 }),
          async (writers, preexisting) => {
            runs += 1;
            const filename = join(directory, `run-${runs}.db`);
            const processes = [0, 1, 2].map(() => new SqliteEventStore({ filename }));
            const caches = [new FoldedStreamCache<ShelfState>(), new FoldedStreamCache<ShelfState>()];
            try {
              for (let index = 0; index < preexisting; index += 1) {
                await rawShelfAppend(processes[0]!, STREAM, `old-${index}`);
              }
              await handleCommand(processes[0]!, STREAM, { type: 'Nothing' }, shelfDecider, {
                parseEvent: parseShelfEvent,
                appender: sealingAppender,
                cache: caches[0]!,
              });
              const results = await Promise.all(
                writers.map((writer, index) => {
                  const cache = caches[writer];
                  return handleCommand(
                    processes[writer]!,
                    STREAM,
                    { type: 'Add', item: `item-${index}` },
                    shelfDecider,
                    {
                      parseEvent: parseShelfEvent,
                      appender: sealingAppender,
                      maxAttempts: 50,
                      ...(cache !== undefined ? { cache } : {}),
                    },
                  );
                }),
              );
              const stored = await shelfOf(processes[2]!, STREAM);
              const expected = [...Array.from({ length: preexisting }, (_, index) => `old-${index}`)];
              expect([...stored.items].sort()).toEqual(
                [...expected, ...writers.map((_, index) => `item-${index}`)].sort(),
              );
              for (const result of results) {
                expect(result.state).toEqual(await shelfOf(processes[2]!, STREAM, result.revision ?? -1n));
              }
              for (const [index, cache] of caches.entries()) {
                const next = await handleCommand(
                  processes[index]!,
                  STREAM,
                  { type: 'Nothing' },
                  shelfDecider,
                  {
                    parseEvent: parseShelfEvent,
                    appender: sealingAppender,
                    cache,
                  },
                );
                expect(next.state).toEqual(stored);
              }
              expect((await verifyStream(processes[2]!, STREAM)).ok).toBe(true);
            } finally {
              await Promise.all(processes.map((store) => store.close()));
            }
          },
        ),
        { numRuns: 15 },
      );
    });
  });
});
