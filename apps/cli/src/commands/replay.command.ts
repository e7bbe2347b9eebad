// `strata replay`: rebuilds the stored projections (catalog, audit, search) from the event log —
// resets them and their checkpoints, brings back the sessions they had set aside, replays every
// session event, and reports totals, the sessions set aside again, and throughput. Progress goes
// to stderr, the report to stdout (one JSON object with `--json`). The context projection lives in
// the engine's memory and hydrates itself on demand, so there is nothing of it to replay; its
// session snapshots (decision 0019) are deleted by every replay, so that a read after a rebuild
// starts from the events whatever format they were written in.
// A running engine keeps the same projections up to date, and a rebuild under it would race its
// writes and checkpoints: every engine holds a shared file lock on the projection database while
// it runs and the replay takes that lock exclusively, without waiting, or refuses before changing
// anything (@strata/projections `projections-in-use.ts` says why a lock and not a heartbeat).
import { resolveStoreUrl } from '@strata/event-store';
import type { ParkedPartition, RunnerProgress } from '@strata/processing';
import {
  createProjectionSet,
  durableProjectionNames,
  isProjectionName,
  holdProjectionsForRebuild,
  openProjectionStorage,
  type ProjectionName,
  type ProjectionsHold,
} from '@strata/projections';
import { charsPerFourCounter } from '@strata/session';
import { CliError, type CommandImplementation, type CliIo } from '../cli-io';
import {
  storeOpeningOptions,
  storeOptionHelp,
  storeOptionUsage,
  withEventStore,
} from '../shared/event-store-option';
import { jsonLine } from '../shared/json-output';
import { parseCommandLine } from '../shared/options';

const PROGRESS_INTERVAL = 10_000;
/**
 * Events between the checkpoints of a replay (500 in the engine's catch-up): the read models write
 * in fewer, larger transactions (the search index also writes behind in bounded batches of its
 * own), and a replay cut short starts again from its last checkpoint anyway.
 */
const REPLAY_CHECKPOINT_INTERVAL = 20_000;

function projectionsToReplay(name: string | undefined): readonly ProjectionName[] {
  if (name === undefined) return durableProjectionNames;
  if (name === 'context') {
    throw new CliError(
      'the context projection is kept in the engine’s memory and rebuilt on demand; replay catalog, audit or search',
      2,
    );
  }
  if (!isProjectionName(name) || !durableProjectionNames.includes(name)) {
    throw new CliError(
      `--projection must be ${durableProjectionNames.slice(0, -1).join(', ')} or ${durableProjectionNames.at(-1) ?? ''}, not '${name}'`,
      2,
    );
  }
  return [name];
}

function describeProgress(progress: RunnerProgress): string {
  const target = progress.targetPosition === null ? '' : ` of ${progress.targetPosition}`;
  return `replay: ${progress.eventsRead} events read (position ${progress.position}${target})\n`;
}

function describeSetAside(record: ParkedPartition): string {
  return (
    `replay: ${record.processor} set ${record.partition} aside at event ${record.eventId} ` +
    `(${record.eventType}, position ${record.position}): ${record.reason}\n`
  );
}

function rate(events: number, seconds: number): string {
  return seconds > 0 ? Math.round(events / seconds).toLocaleString('en-US') : '∞';
}

async function replay(
  storeUrl: string,
  names: readonly ProjectionName[],
  projectionsDatabase: string | undefined,
  json: boolean,
  io: CliIo,
): Promise<number> {
  return withEventStore(storeUrl, io, async (store) => {
    const storage = openProjectionStorage(storeUrl, {
      ...storeOpeningOptions(io),
      ...(projectionsDatabase !== undefined ? { projectionsDatabase } : {}),
    });
    let hold: ProjectionsHold | undefined;
    try {
      hold = holdForRebuild(storage.location);
      const { runner } = createProjectionSet({
        store,
        storage,
        tokenCounter: charsPerFourCounter,
        include: names,
        runner: {
          progressInterval: PROGRESS_INTERVAL,
          checkpointInterval: REPLAY_CHECKPOINT_INTERVAL,
          onProgress: (progress) => io.stderr(describeProgress(progress)),
          onParked: (record) => io.stderr(describeSetAside(record)),
        },
      });
      io.stderr(`replay: rebuilding ${names.join(', ')} from ${storeUrl} into ${storage.location}\n`);
      await storage.contextSnapshots?.clear();
      const startedAt = performance.now();
      const report = await runner.rebuild(names);
      const seconds = (performance.now() - startedAt) / 1000;
      const applied = runner
        .status()
        .processors.map((processor) => [processor.name, processor.eventsHandled] as const);
      if (json) {
        io.stdout(
          jsonLine({
            rebuilt: report.processors,
            position: report.position ?? null,
            eventsRead: report.eventsRead,
            applied: Object.fromEntries(applied),
            setAside: report.parkedPartitions,
            seconds: Number(seconds.toFixed(3)),
            eventsPerSecond: seconds > 0 ? Math.round(report.eventsRead / seconds) : null,
          }),
        );
        return 0;
      }
      const perProjection = applied.map(([name, handled]) => `${name} ${handled}`).join(', ');
      io.stdout(
        [
          `rebuilt ${report.processors.join(', ')} up to position ${report.position ?? 'none'}`,
          `events read: ${report.eventsRead}; applied: ${perProjection}; sessions set aside: ${report.parkedPartitions}`,
          `time: ${seconds.toFixed(3)} s; throughput: ${rate(report.eventsRead, seconds)} events/s`,
          '',
        ].join('\n'),
      );
      return 0;
    } finally {
      await storage.close();
      hold?.release();
    }
  });
}

/** Refuses (exit 1) while an engine, or another replay, uses the projection database. */
function holdForRebuild(location: string): ProjectionsHold | undefined {
  if (location === 'memory' || location === ':memory:') return undefined;
  const hold = holdProjectionsForRebuild(location);
  if (hold === undefined) {
    throw new CliError(
      `an engine is running on ${location} (or another replay is rebuilding it); stop it, then replay: nothing was changed`,
    );
  }
  return hold;
}

export const replayCommand: CommandImplementation = {
  name: 'replay',
  usage:
    `strata replay [--projection catalog|audit|search] ${storeOptionUsage} [--projections-db <path>] [--json]\n` +
    `  ${storeOptionHelp}\n` +
    '  --projection: rebuild only this one (default: all three)\n' +
    '  --projections-db: the SQLite file of the projections; by default the SQLite store file itself,\n' +
    '    or ./data/projections.db for other stores\n' +
    '  --json: print the report (projections rebuilt, position, events read and applied, time) as one JSON object\n' +
    '  Refuses (exit 1, nothing changed) while an engine keeps these projections up to date: stop it first.\n' +
    'examples:\n' +
    '  strata replay\n' +
    '  strata replay --projection search --store esdb://localhost:2113?tls=false --json',
  async run(argv, io) {
    const { values } = parseCommandLine(argv, {
      projection: { type: 'string' },
      store: { type: 'string' },
      'projections-db': { type: 'string' },
      json: { type: 'boolean', default: false },
    });
    const names = projectionsToReplay(values.projection);
    return replay(resolveStoreUrl(values.store, io.env), names, values['projections-db'], values.json, io);
  },
};
