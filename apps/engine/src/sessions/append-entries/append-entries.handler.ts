// Adapter: AppendEntries → the decider's AppendEntries, as a live write: each tool result must
// answer a call pending at its parent, and the batch must bear the token of the writer lease in
// force, checked in the same decision (imports go through session-files and keep their file).
// Settings entries (`strata.settings`) are validated first, so an invalid override never reaches
// the log. The entries' long texts are counted (in slices) before they are written, so that the
// sagas, which count synchronously when the entries reach them, find the counts ready. With an
// idempotency key the batch's event ids derive from the session and the key; a key used before
// answers the first outcome (its entry ids, and the leaf and revision right after it) when the
// entries are the same, and is refused with `IdempotencyMismatchError` when they are not.
import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { derivedEventId, sessionIdSeed, type EarlierHandling } from '@strata/event-store';
import { entryWeight, textsToCount, type SessionCommand, type SessionEntry } from '@strata/session';
import type { PreparedTokenCounter } from '@strata/tokenizer';
import { isSessionSettingsEntry, parseSessionSettingsOverride } from '../../settings/session-settings';
import { IdempotencyMismatchError, requestDigestOf, requireSameRequest } from '../../shared/idempotency';
import type { Clock } from '../../shared/clock';
import { CLOCK, TOKEN_COUNTER } from '../../shared/injection-tokens';
import { leaseCheckOf } from '../../session-streams/session-leases';
import { requireRoomFor } from '../../shared/session-size';
import { SessionStreams, type SessionWriteOptions } from '../../session-streams/session-streams.service';
import { writeContextOf } from '../../shared/command-context';
import { traceAppend } from '../../observability/tracing/engine-spans';
import { AppendEntriesCommand, type AppendEntriesResult } from './append-entries.command';

/** What an append's idempotency key stands for: its entries (the preconditions are checks, not content). */
function appendDigestOf(entries: readonly SessionEntry[]): string {
  return requestDigestOf(entries);
}

function keyedWrite(sessionId: string, key: string, entries: readonly SessionEntry[]): SessionWriteOptions {
  return {
    idSeed: sessionIdSeed(sessionId, 'append', key),
    formerIdSeeds: [`${sessionId}/append/${key}`],
    requestDigest: appendDigestOf(entries),
  };
}

@CommandHandler(AppendEntriesCommand)
export class AppendEntriesHandler implements ICommandHandler<AppendEntriesCommand> {
  constructor(
    private readonly streams: SessionStreams,
    @Inject(TOKEN_COUNTER) private readonly counter: PreparedTokenCounter,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  execute(command: AppendEntriesCommand): Promise<AppendEntriesResult> {
    return traceAppend(command, () => this.append(command));
  }

  private async append({
    sessionId,
    entries,
    options,
    context,
  }: AppendEntriesCommand): Promise<AppendEntriesResult> {
    for (const entry of entries) {
      if (entry.type === 'custom' && isSessionSettingsEntry(entry))
        parseSessionSettingsOverride(entry.data, entry.id);
    }
    await this.counter.countAhead(textsToCount(entries));
    const { expectedLeafId, expectedRevision, idempotencyKey, leaseToken } = options;
    const now = this.clock.now();
    const keyed = idempotencyKey !== undefined ? keyedWrite(sessionId, idempotencyKey, entries) : {};
    const added = entries.reduce((total, entry) => total + entryWeight(entry), 0);
    const { maxSessionEntries } = this.streams;
    const written = await this.streams.execute(
      sessionId,
      (state): SessionCommand[] => {
        requireRoomFor(sessionId, state, added, maxSessionEntries);
        return [
          leaseCheckOf(leaseToken, now),
          {
            type: 'AppendEntries',
            data: {
              entries,
              pairToolResults: true,
              ...(expectedLeafId !== undefined ? { expectedLeafId } : {}),
            },
          },
        ];
      },
      {
        ...keyed,
        ...(expectedRevision !== undefined ? { expectedRevision } : {}),
        ...writeContextOf(context),
      },
    );
    if (written.earlier !== undefined && idempotencyKey !== undefined) {
      return this.firstOutcome(sessionId, idempotencyKey, entries, written.earlier);
    }
    return {
      sessionId,
      entryIds: entries.map((entry) => entry.id),
      eventIds: written.eventIds,
      leafId: written.state.status === 'active' ? written.state.leafId : null,
      revision: written.revision,
      alreadyAppended: false,
      ...(written.state.status === 'active' ? { sessionAfter: written.state } : {}),
    };
  }

  /** The answer the first request with this key got, after checking that it asked the same. */
  private async firstOutcome(
    sessionId: string,
    key: string,
    entries: readonly SessionEntry[],
    earlier: EarlierHandling,
  ): Promise<AppendEntriesResult> {
    const written = await this.streams.eventsOf(sessionId, earlier);
    const appended = written.flatMap(({ event }) =>
      event.type === 'EntryAppended' ? [event.data.entry] : [],
    );
    requireSameRequest(
      earlier.requestDigest ?? appendDigestOf(appended),
      appendDigestOf(entries),
      () => new IdempotencyMismatchError('idempotencyKey', key, 'other entries'),
    );
    return {
      sessionId,
      entryIds: appended.map((entry) => entry.id),
      eventIds: written.map((_, index) => derivedEventId(earlier.idSeed, index)),
      leafId: appended[appended.length - 1]?.id ?? null,
      revision: written[written.length - 1]?.revision ?? earlier.revision,
      alreadyAppended: true,
    };
  }
}
