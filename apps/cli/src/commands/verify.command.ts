// `strata verify`: recomputes the hash chain of one session's stream, or of every stream, and
// reports that it holds (with the event count) or names the first event where it breaks. A
// broken chain is the command's finding, printed on stdout, with exit code 1.
import { verifyAll, verifyStream, type ChainBreak, type ChainBreakReason } from '@strata/event-store';
import { sessionStreamName } from '@strata/session';
import { CliError, type CliCommand } from '../cli-io';
import { storeOptionHelp, storeOptionUsage, withEventStore } from '../shared/event-store-option';
import { parseCommandLine } from '../shared/options';

function explain(reason: ChainBreakReason): string {
  switch (reason) {
    case 'missing_seal':
      return 'it carries no integrity seal';
    case 'revision_gap':
      return 'its revision does not follow the previous one (an event was removed or reordered)';
    case 'previous_hash_mismatch':
      return 'its previousHash is not the hash of the event before it';
    case 'hash_mismatch':
      return 'its stored content no longer gives its hash (it was altered)';
    default: {
      const unhandled: never = reason;
      return String(unhandled);
    }
  }
}

function describeBreak(streamId: string, broken: ChainBreak): string {
  return `${streamId}: chain broken at revision ${broken.revision}, event ${broken.eventId}: ${broken.reason} (${explain(broken.reason)})`;
}

export const verifyCommand: CliCommand = {
  name: 'verify',
  summary: "check the hash chain of a session's events (or of every stream)",
  usage: `strata verify [<sessionId>|--all] ${storeOptionUsage}\n  ${storeOptionHelp}`,
  async run(argv, io) {
    const { values, positionals } = parseCommandLine(
      argv,
      { all: { type: 'boolean', default: false }, store: { type: 'string' } },
      true,
    );
    if (positionals.length > 1) throw new CliError('verify takes at most one session id', 2);
    const [sessionId] = positionals;
    if (sessionId !== undefined && values.all) throw new CliError('give a session id or --all, not both', 2);
    return withEventStore(values.store, io, async (store) => {
      if (sessionId !== undefined) {
        const streamId = sessionStreamName(sessionId);
        const result = await verifyStream(store, streamId);
        if (!result.ok) {
          io.stdout(
            `${describeBreak(streamId, result.brokenAt)}; ${result.verifiedEvents} events before it hold\n`,
          );
          return 1;
        }
        if (result.events === 0) throw new CliError(`session ${sessionId} is not in the store`);
        io.stdout(`${streamId}: chain holds (${result.events} events, head ${result.headHash})\n`);
        return 0;
      }
      const result = await verifyAll(store);
      for (const broken of result.broken) io.stdout(`${describeBreak(broken.streamId, broken)}\n`);
      io.stdout(
        result.ok
          ? `every chain holds (${result.streams} streams, ${result.events} events)\n`
          : `${result.broken.length} of ${result.streams} streams broken (${result.events} events read)\n`,
      );
      return result.ok ? 0 : 1;
    });
  },
};
