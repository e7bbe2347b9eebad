// Adapter: AppendEntries → the decider's AppendEntries. Settings entries (`strata.settings`)
// are validated first, so an invalid override never reaches the log. The entries' long texts are
// counted (in slices) before they are written, so that the sagas, which count synchronously when
// the entries reach them, find the counts ready.
import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { PreparedTokenCounter } from '@strata/tokenizer';
import { isSessionSettingsEntry, parseSessionSettingsOverride } from '../../settings/session-settings';
import { TOKEN_COUNTER } from '../../shared/injection-tokens';
import { SessionStreams } from '../session-streams.service';
import { textsToCount } from '../session-views';
import { AppendEntriesCommand, type AppendEntriesResult } from './append-entries.command';

@CommandHandler(AppendEntriesCommand)
export class AppendEntriesHandler implements ICommandHandler<AppendEntriesCommand> {
  constructor(
    private readonly streams: SessionStreams,
    @Inject(TOKEN_COUNTER) private readonly counter: PreparedTokenCounter,
  ) {}

  async execute({ sessionId, entries, options }: AppendEntriesCommand): Promise<AppendEntriesResult> {
    for (const entry of entries) {
      if (entry.type === 'custom' && isSessionSettingsEntry(entry))
        parseSessionSettingsOverride(entry.data, entry.id);
    }
    await this.counter.countAhead(textsToCount(entries));
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
