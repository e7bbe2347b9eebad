// Adapter: SetLabel → the decider's SetLabel, with the label entry appended at the current leaf.
// With an idempotency key the event and entry ids derive from the session and the key; a key
// used before answers the label entry it wrote then (with the revision right after it) when the
// target and label are the same, and is refused with `IdempotencyMismatchError` when they are not.
import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { sessionIdSeed, type EarlierHandling } from '@strata/event-store';
import { entryWeight, type LabelEntry, type SessionCommand, type SessionState } from '@strata/session';
import type { Clock } from '../../shared/clock';
import { leaseCheckOf } from '../../session-streams/session-leases';
import { newEntryId } from '../../shared/entry-ids';
import { IdempotencyMismatchError, requestDigestOf, requireSameRequest } from '../../shared/idempotency';
import { CLOCK } from '../../shared/injection-tokens';
import { SessionStreams, type SessionWriteOptions } from '../../session-streams/session-streams.service';
import { writeContextOf } from '../../shared/command-context';
import { requireRoomFor } from '../../shared/session-size';
import { SetLabelCommand, type SetLabelResult } from './set-label.command';

/** What a label's idempotency key stands for: its target and its label (none when cleared). */
function labelDigestOf(targetId: string, label: string | undefined): string {
  return requestDigestOf({ targetId, label: label !== undefined && label !== '' ? label : null });
}

@CommandHandler(SetLabelCommand)
export class SetLabelHandler implements ICommandHandler<SetLabelCommand> {
  constructor(
    private readonly streams: SessionStreams,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ sessionId, targetId, label, options, context }: SetLabelCommand): Promise<SetLabelResult> {
    const key = options.idempotencyKey;
    const seed = key !== undefined ? sessionIdSeed(sessionId, 'label', key) : undefined;
    const now = this.clock.now();
    const timestamp = new Date(now).toISOString();
    const labelEntry = (state: SessionState): LabelEntry => ({
      type: 'label',
      id: newEntryId((entryId) => state.status === 'active' && state.hasEntry(entryId), seed),
      parentId: state.status === 'active' ? state.leafId : null,
      timestamp,
      targetId,
      ...(label ? { label } : {}),
    });
    const plan = (state: SessionState): SessionCommand[] => {
      const entry = labelEntry(state);
      requireRoomFor(sessionId, state, entryWeight(entry), this.streams.maxSessionEntries);
      return [leaseCheckOf(options.leaseToken, now), { type: 'SetLabel', data: { entry } }];
    };
    const keyed: SessionWriteOptions =
      key !== undefined && seed !== undefined
        ? {
            idSeed: seed,
            formerIdSeeds: [`${sessionId}/label/${key}`],
            requestDigest: labelDigestOf(targetId, label),
          }
        : {};
    const written = await this.streams.execute(sessionId, plan, { ...keyed, ...writeContextOf(context) });
    if (written.earlier !== undefined && key !== undefined) {
      return this.firstOutcome(sessionId, key, labelDigestOf(targetId, label), written.earlier);
    }
    const entry = written.events.find((event) => event.type === 'EntryAppended')?.data.entry;
    if (entry?.type !== 'label') throw new Error(`label of ${targetId} was not recorded`);
    return { sessionId, entry, revision: written.revision, alreadySet: false };
  }

  private async firstOutcome(
    sessionId: string,
    key: string,
    requestDigest: string,
    earlier: EarlierHandling,
  ): Promise<SetLabelResult> {
    const [written] = await this.streams.eventsOf(sessionId, earlier);
    const entry = written?.event.type === 'EntryAppended' ? written.event.data.entry : undefined;
    if (written === undefined || entry?.type !== 'label')
      throw new Error(`label of key ${key} is not a label`);
    requireSameRequest(
      earlier.requestDigest ?? labelDigestOf(entry.targetId, entry.label),
      requestDigest,
      () => new IdempotencyMismatchError('idempotencyKey', key, 'another label'),
    );
    return { sessionId, entry, revision: written.revision, alreadySet: true };
  }
}
