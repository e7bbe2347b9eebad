// `strata retention [--dry-run]`: the settings' `retention: {tenant: days}` applied now, as the
// engine's retention pass applies it: every session of a tenant with a rule whose last event is
// older than that many days is erased through the audited erasure (actor `strata-retention`, the
// rule in the reason). With `--dry-run` the sessions are listed and nothing is erased. The store
// is read once, session streams only, holding one small record per session.
import { eventTenantOf, type EventStore } from '@strata/event-store';
import {
  eraseRetentionCandidates,
  readEngineSettingsFile,
  retentionCandidates,
  type RetentionCandidate,
} from '@strata/engine';
import { SESSION_STREAM_PREFIX } from '@strata/session';
import { cliLogWriting } from '../shared/anchor-options';
import { CliError, type CommandImplementation, type CliIo } from '../cli-io';
import { storeOptionHelp, storeOptionUsage, withEventStore } from '../shared/event-store-option';
import { parseCommandLine } from '../shared/options';

const PROGRESS_EVERY = 100_000;

interface SessionActivity {
  readonly tenant: string;
  lastActivityAt: string;
}

/** The last event time of every session of the tenants named, read from the log once. */
async function sessionActivity(
  store: EventStore,
  tenants: ReadonlySet<string>,
  io: CliIo,
): Promise<Map<string, SessionActivity>> {
  const sessions = new Map<string, SessionActivity>();
  let read = 0;
  for await (const event of store.readAll({ filter: { streamPrefixes: [SESSION_STREAM_PREFIX] } })) {
    read += 1;
    if (read % PROGRESS_EVERY === 0) io.stderr(`retention: ${read} events read, ${sessions.size} sessions\n`);
    const sessionId = event.streamId.slice(SESSION_STREAM_PREFIX.length);
    const known = sessions.get(sessionId);
    if (known !== undefined) {
      if (event.createdAt > known.lastActivityAt) known.lastActivityAt = event.createdAt;
      continue;
    }
    const tenant = eventTenantOf(event.metadata);
    sessions.set(sessionId, { tenant, lastActivityAt: event.createdAt });
  }
  for (const [sessionId, activity] of sessions) if (!tenants.has(activity.tenant)) sessions.delete(sessionId);
  return sessions;
}

function candidateLine(verb: string, candidate: RetentionCandidate): string {
  return `${verb} ${candidate.sessionId} (tenant ${candidate.tenant}, last activity ${candidate.lastActivityAt}, rule ${candidate.days} days)\n`;
}

export const retentionCommand: CommandImplementation = {
  name: 'retention',
  usage:
    `strata retention ${storeOptionUsage} [--settings <file.json>] [--dry-run] [--json]\n` +
    `  ${storeOptionHelp}\n` +
    '  --settings: the settings file with `retention: {tenant: days}` (STRATA_SETTINGS otherwise)\n' +
    '  --dry-run: list the sessions that would be erased, erase nothing\n' +
    '  --json: one JSON object a session instead of a line\n' +
    'examples:\n' +
    '  strata retention --settings settings.json --dry-run\n' +
    '  STRATA_SETTINGS=settings.json strata retention --json',
  async run(argv, io) {
    const { values, positionals } = parseCommandLine(argv, {
      store: { type: 'string' },
      settings: { type: 'string' },
      'dry-run': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    });
    if (positionals.length > 0) throw new CliError('retention takes no positional arguments', 2);
    const settingsFile = values.settings ?? io.env['STRATA_SETTINGS'];
    if (settingsFile === undefined || settingsFile === '')
      throw new CliError(
        'name the settings file with the retention rules: --settings <file.json> or STRATA_SETTINGS',
        2,
      );
    const rules = readEngineSettingsFile(settingsFile).retention;
    const tenants = Object.keys(rules).sort();
    if (tenants.length === 0) {
      io.stderr(`retention: ${settingsFile} has no retention rules; nothing to do\n`);
      return 0;
    }
    const dryRun = values['dry-run'];
    const now = Date.now();
    await withEventStore(values.store, io, async (store) => {
      const sessions = await sessionActivity(store, new Set(tenants), io);
      const candidates = await retentionCandidates(
        rules,
        now,
        (tenant, idleBefore, limit) =>
          Promise.resolve(
            [...sessions]
              .filter(([, activity]) => activity.tenant === tenant && activity.lastActivityAt < idleBefore)
              .sort(([, a], [, b]) => a.lastActivityAt.localeCompare(b.lastActivityAt))
              .slice(0, limit)
              .map(([sessionId, activity]) => ({ sessionId, lastActivityAt: activity.lastActivityAt })),
          ),
        Number.MAX_SAFE_INTEGER,
        tenants,
      );
      if (dryRun) {
        for (const candidate of candidates)
          io.stdout(values.json ? `${JSON.stringify(candidate)}\n` : candidateLine('would erase', candidate));
        io.stderr(`retention: ${candidates.length} of ${sessions.size} sessions would be erased (dry run)\n`);
        return;
      }
      let erased = 0;
      const writing = cliLogWriting(io, store);
      const results = await eraseRetentionCandidates(store, candidates, writing.erasureSigner);
      await writing.checkpoint();
      for (const result of results) {
        if (result.outcome.kind === 'erased') erased += 1;
        if (values.json) {
          io.stdout(
            `${JSON.stringify({ ...result.candidate, outcome: result.outcome.kind, ...(result.outcome.kind === 'erased' ? { record: result.outcome.record } : {}) })}\n`,
          );
        } else {
          io.stdout(
            candidateLine(
              result.outcome.kind === 'erased' ? 'erased' : 'skipped (erased or gone meanwhile)',
              result.candidate,
            ),
          );
        }
      }
      io.stderr(`retention: ${erased} of ${sessions.size} sessions erased\n`);
    });
    return 0;
  },
};
