// `strata replay`: rebuilds the stored projections (catalog, audit) from the event log —
// resets them and their checkpoints, replays every session event, and reports totals and
// throughput. Progress goes to stderr, the report to stdout. The context projection lives in
// the engine's memory and hydrates itself on demand, so there is nothing of it to replay.
import { resolveStoreUrl } from '@strata/event-store';
import {
  createProjectionSet,
  durableProjectionNames,
  isProjectionName,
  openProjectionStorage,
  type InvalidEventReport,
  type ProjectionName,
  type RunnerProgress,
} from '@strata/projections';
import { charsPerFourCounter } from '@strata/session';
import { CliError, type CliCommand, type CliIo } from '../cli-io';
import { storeOptionHelp, storeOptionUsage, withEventStore } from '../shared/event-store-option';
import { parseCommandLine } from '../shared/options';

const PROGRESS_INTERVAL = 10_000;

function projectionsToReplay(name: string | undefined): readonly ProjectionName[] {
  if (name === undefined) return durableProjectionNames;
  if (name === 'context') {
    throw new CliError(
      'the context projection is kept in the engine’s memory and rebuilt on demand; replay catalog or audit',
      2,
    );
  }
  if (!isProjectionName(name) || !durableProjectionNames.includes(name)) {
    throw new CliError(`--projection must be ${durableProjectionNames.join(' or ')}, not '${name}'`, 2);
  }
  return [name];
}

function describeProgress(progress: RunnerProgress): string {
  const target = progress.targetPosition === null ? '' : ` of ${progress.targetPosition}`;
  return `replay: ${progress.eventsRead} events read (position ${progress.position}${target})\n`;
}

function describeInvalid(report: InvalidEventReport): string {
  return `replay: skipped event ${report.eventId} (${report.type}) at position ${report.position} of ${report.streamId}: ${report.reason}: ${report.detail}\n`;
}

function rate(events: number, seconds: number): string {
  return seconds > 0 ? Math.round(events / seconds).toLocaleString('en-US') : '∞';
}

async function replay(
  storeUrl: string,
  names: readonly ProjectionName[],
  projectionsDatabase: string | undefined,
  io: CliIo,
): Promise<number> {
  return withEventStore(storeUrl, io, async (store) => {
    const storage = openProjectionStorage(storeUrl, {
      cwd: io.cwd,
      ...(projectionsDatabase !== undefined ? { projectionsDatabase } : {}),
    });
    try {
      const { runner } = createProjectionSet({
        store,
        storage,
        tokenCounter: charsPerFourCounter,
        include: names,
        runner: {
          progressInterval: PROGRESS_INTERVAL,
          onProgress: (progress) => io.stderr(describeProgress(progress)),
          onInvalidEvent: (report) => io.stderr(describeInvalid(report)),
        },
      });
      io.stderr(`replay: rebuilding ${names.join(', ')} from ${storeUrl} into ${storage.location}\n`);
      const startedAt = performance.now();
      const report = await runner.rebuild(names);
      const seconds = (performance.now() - startedAt) / 1000;
      const perProjection = runner
        .status()
        .projections.map((projection) => `${projection.name} ${projection.eventsApplied}`)
        .join(', ');
      io.stdout(
        [
          `rebuilt ${report.projections.join(', ')} up to position ${report.position ?? 'none'}`,
          `events read: ${report.eventsRead}; applied: ${perProjection}; skipped as invalid: ${report.invalidEvents}`,
          `time: ${seconds.toFixed(3)} s; throughput: ${rate(report.eventsRead, seconds)} events/s`,
          '',
        ].join('\n'),
      );
      return 0;
    } finally {
      await storage.close();
    }
  });
}

export const replayCommand: CliCommand = {
  name: 'replay',
  summary: 'rebuild the catalog and audit projections from the event log',
  usage:
    `strata replay [--projection catalog|audit] ${storeOptionUsage} [--projections-db <path>]\n` +
    `  ${storeOptionHelp}\n` +
    '  projections live in the SQLite store file itself; for other stores in --projections-db (default ./data/projections.db)\n' +
    '  stop the engine first: it keeps its own copy of the projections up to date',
  async run(argv, io) {
    const { values } = parseCommandLine(argv, {
      projection: { type: 'string' },
      store: { type: 'string' },
      'projections-db': { type: 'string' },
    });
    const names = projectionsToReplay(values.projection);
    return replay(resolveStoreUrl(values.store, io.env), names, values['projections-db'], io);
  },
};
