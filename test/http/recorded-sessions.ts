// Sessions written straight into a SQLite store, as an engine before today's input rules could
// have stored them (huge or negative usage, bad timestamps): sealed and chained like any other
// events, so only the rules that came later tell them apart.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { SqliteEventStore } from '@strata/event-store';
import { createSealingAppender } from '@strata/integrity';
import { sessionStreamName, type SessionEntry, type SessionHeader } from '@strata/session';

/** Writes `SessionStarted` and one `EntryAppended` per entry into `<directory>/strata.db`. */
export async function writeRecordedSession(
  directory: string,
  header: SessionHeader,
  entries: readonly SessionEntry[],
): Promise<void> {
  const store = new SqliteEventStore({ filename: join(directory, 'strata.db') });
  try {
    const events = [
      { id: randomUUID(), type: 'SessionStarted', data: { header }, metadata: {} },
      ...entries.map((entry) => ({ id: randomUUID(), type: 'EntryAppended', data: { entry }, metadata: {} })),
    ];
    const append = createSealingAppender({ tenant: 'default', actor: 'an-older-engine' });
    const streamId = sessionStreamName(header.id);
    await append({ store, streamId, events, expectedRevision: 'no_stream', lastEvent: undefined });
  } finally {
    await store.close();
  }
}
