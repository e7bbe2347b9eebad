// Adapter: AppendEntries → the decider's AppendEntries. Settings entries (`strata.settings`)
// are validated first, so an invalid override never reaches the log.
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { isSessionSettingsEntry, parseSessionSettingsOverride } from '../../settings/session-settings';
import { SessionStreams } from '../session-streams.service';
import { AppendEntriesCommand, type AppendEntriesResult } from './append-entries.command';

@CommandHandler(AppendEntriesCommand)
export class AppendEntriesHandler implements ICommandHandler<AppendEntriesCommand> {
  constructor(private readonly streams: SessionStreams) {}

  async execute({ sessionId, entries, options }: AppendEntriesCommand): Promise<AppendEntriesResult> {
    for (const entry of entries) {
      if (entry.type === 'custom' && isSessionSettingsEntry(entry))
        parseSessionSettingsOverride(entry.data, entry.id);
    }
    const { expectedLeafId, expectedRevision, idempotencyKey } = options;
    const written = await this.streams.execute(
      sessionId,
      {
        type: 'AppendEntries',
        data: { entries, ...(expectedLeafId !== undefined ? { expectedLeafId } : {}) },
      },
      {
        ...(idempotencyKey !== undefined ? { idSeed: `${sessionId}/append/${idempotencyKey}` } : {}),
        ...(expectedRevision !== undefined ? { expectedRevision } : {}),
      },
    );
    return {
      sessionId,
      entryIds: entries.map((entry) => entry.id),
      leafId: written.state.status === 'active' ? written.state.leafId : null,
      revision: written.revision,
      alreadyAppended: written.alreadyHandled,
    };
  }
}
