// `strata erase`: the audited erasure of one session, as `DELETE /sessions/{id}` does it: its
// events are removed from the store (SQLite rows; an EventStoreDB tombstone) and an erasure record
// (who, when, why, how many events, the last head) is left in the store's erasure log, from which
// every engine on the store forgets the session. The record goes to stdout.
import { type ErasureRecord } from '@strata/event-store';
import { SessionNotFoundError } from '@strata/session-files';
import { eraseSession, erasureReasonProblem, SessionErasedError } from '@strata/engine';
import { cliLogWriting } from '../shared/anchor-options';
import { CliError, type CommandImplementation } from '../cli-io';
import { storeOptionHelp, storeOptionUsage, withEventStore } from '../shared/event-store-option';
import { cliActor } from '../shared/cli-actor';
import { parseCommandLine } from '../shared/options';

/** One line of an erasure record, as `strata verify` prints an erased stream. */
export function describeErasureRecord(record: ErasureRecord): string {
  const head =
    record.headHash !== undefined
      ? `, head ${record.headHash.slice(0, 12)}… at revision ${record.headRevision ?? '?'}`
      : '';
  return `erased at ${record.erasedAt} by ${record.actor}: ${record.reason} (${record.eventCount} events${head})`;
}

export const eraseCommand: CommandImplementation = {
  name: 'erase',
  usage:
    `strata erase <sessionId> --reason <text> ${storeOptionUsage} [--actor <name>] [--json]\n` +
    `  ${storeOptionHelp}\n` +
    '  --reason: why (recorded; required, at most 1,000 characters)\n' +
    '  --actor: who erases, as recorded (default strata-cli:<user>)\n' +
    '  --json: print the erasure record as JSON instead of a line\n' +
    '  Exits 1 when the session does not exist or was erased already (that record is printed).\n' +
    'examples:\n' +
    '  strata erase 0190a8f0-7c1d-7000-8000-000000000001 --reason "customer request #4521"\n' +
    '  strata erase 0190a8f0-7c1d-7000-8000-000000000001 --reason "right to erasure" --actor dpo@example.com --json',
  async run(argv, io) {
    const { values, positionals } = parseCommandLine(
      argv,
      {
        store: { type: 'string' },
        reason: { type: 'string' },
        actor: { type: 'string' },
        json: { type: 'boolean', default: false },
      },
      true,
    );
    const [sessionId, ...extra] = positionals;
    if (sessionId === undefined) throw new CliError('name the session to erase', 2);
    if (extra.length > 0) throw new CliError(`erase takes one session id, not ${positionals.length}`, 2);
    const problem = erasureReasonProblem(values.reason);
    if (problem !== undefined) throw new CliError(`--reason: ${problem}`, 2);
    const actor = cliActor(values.actor);
    const record = await withEventStore(values.store, io, async (store) => {
      try {
        const writing = cliLogWriting(io, store);
        const erased = await eraseSession(
          store,
          sessionId,
          { actor, reason: values.reason! },
          writing.erasureSigner,
        );
        await writing.checkpoint();
        return erased;
      } catch (error) {
        if (error instanceof SessionErasedError) {
          throw new CliError(`session ${sessionId} was ${describeErasureRecord(error.record)} already`);
        }
        if (error instanceof SessionNotFoundError) throw new CliError(`no session ${sessionId} in the store`);
        throw error;
      }
    });
    io.stdout(
      values.json
        ? `${JSON.stringify({ sessionId, ...record })}\n`
        : `session ${sessionId} ${describeErasureRecord(record)}\n`,
    );
    return 0;
  },
};
