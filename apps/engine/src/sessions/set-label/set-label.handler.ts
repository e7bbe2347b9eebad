// Adapter: SetLabel → the decider's SetLabel, with the label entry appended at the current leaf.
import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { LabelEntry, SessionCommand, SessionEntry, SessionState } from '@strata/session';
import { isoTimestamp, type Clock } from '../../shared/clock';
import { newEntryId } from '../../shared/entry-ids';
import { CLOCK } from '../../shared/injection-tokens';
import { SessionStreams } from '../session-streams.service';
import { SetLabelCommand, type SetLabelResult } from './set-label.command';

@CommandHandler(SetLabelCommand)
export class SetLabelHandler implements ICommandHandler<SetLabelCommand> {
  constructor(
    private readonly streams: SessionStreams,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ sessionId, targetId, label, options }: SetLabelCommand): Promise<SetLabelResult> {
    const seed =
      options.idempotencyKey !== undefined ? `${sessionId}/label/${options.idempotencyKey}` : undefined;
    const timestamp = isoTimestamp(this.clock);
    const labelEntry = (state: SessionState): LabelEntry => ({
      type: 'label',
      id: newEntryId((entryId) => state.status === 'active' && state.hasEntry(entryId), seed),
      parentId: state.status === 'active' ? state.leafId : null,
      timestamp,
      targetId,
      ...(label ? { label } : {}),
    });
    const plan = (state: SessionState): SessionCommand[] => [
      { type: 'SetLabel', data: { entry: labelEntry(state) } },
    ];
    const written = await this.streams.execute(sessionId, plan, seed !== undefined ? { idSeed: seed } : {});
    const appended = written.events.find((event) => event.type === 'EntryAppended')?.data.entry;
    const entry = appended ?? latestLabelOf(written.state, targetId);
    if (entry?.type !== 'label') throw new Error(`label of ${targetId} was not recorded`);
    return { sessionId, entry, revision: written.revision, alreadySet: written.alreadyHandled };
  }
}

function latestLabelOf(state: SessionState, targetId: string): SessionEntry | undefined {
  if (state.status !== 'active') return undefined;
  return [...state.entries()]
    .reverse()
    .find((entry) => entry.type === 'label' && entry.targetId === targetId);
}
