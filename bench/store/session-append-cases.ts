// Store-suite cases for the engine's write side on a long session: one entry appended by one
// command (`SessionStreams.execute`, what every append request runs) to a SQLite session of
// 1,000 or 10,000 entries, with the fold cache the engine keeps (the command reads only the
// events since its cached fold) next to no cache (every command reads and folds the whole
// stream, as before the cache), and the append request's handler with an idempotency key (its
// request digest, and the read-back of the first event that tells a race lost to the same key).
// Each case writes its own copy of the session in one file.
import { SqliteEventStore } from '@strata/event-store';
import type { SessionEntry } from '@strata/session';
import { session } from '@strata/testing';
import { createPreparedTokenCounter } from '@strata/tokenizer';
import { AppendEntriesCommand } from '../../apps/engine/src/sessions/append-entries/append-entries.command';
import { AppendEntriesHandler } from '../../apps/engine/src/sessions/append-entries/append-entries.handler';
import { SessionStreams } from '../../apps/engine/src/session-streams/session-streams.service';
import { systemClock } from '../../apps/engine/src/shared/clock';
import { generateSession } from '../context/generate-session';
import { userTurnEntry } from '../projection/session-streams';
import type { BenchCase } from '../harness';
import { freshDatabase } from './sqlite-cases';

const SEED_CHUNK = 1_000;

/** A session written through `streams`, and the next entry to append to it. */
class LongSession {
  private appended = 0;

  constructor(
    readonly streams: SessionStreams,
    readonly sessionId: string,
    private leafId: string,
  ) {}

  static async write(
    streams: SessionStreams,
    sessionId: string,
    entries: readonly SessionEntry[],
  ): Promise<LongSession> {
    const { header } = session({ sessionId, cwd: '/bench' });
    await streams.execute(sessionId, { type: 'StartSession', data: { header } });
    for (let start = 0; start < entries.length; start += SEED_CHUNK) {
      await streams.execute(sessionId, {
        type: 'AppendEntries',
        data: { entries: entries.slice(start, start + SEED_CHUNK) },
      });
    }
    const last = entries[entries.length - 1];
    if (last === undefined) throw new Error('an empty session');
    return new LongSession(streams, sessionId, last.id);
  }

  /** Appends one user entry to the leaf with one command. */
  async appendOne(): Promise<void> {
    const entry = this.nextEntry();
    await this.streams.execute(this.sessionId, { type: 'AppendEntries', data: { entries: [entry] } });
  }

  /** Appends one user entry to the leaf as an append request with a fresh idempotency key does. */
  async appendOneWithKey(handler: AppendEntriesHandler): Promise<void> {
    const entry = this.nextEntry();
    const idempotencyKey = `bench-${this.appended}`;
    await handler.execute(new AppendEntriesCommand(this.sessionId, [entry], { idempotencyKey }));
  }

  private nextEntry(): SessionEntry {
    this.appended += 1;
    const entry = userTurnEntry(`append-${this.appended}`, this.leafId, Date.UTC(2026, 0, 1) + this.appended);
    this.leafId = entry.id;
    return entry;
  }
}

export interface SessionAppendFixture {
  readonly cases: readonly BenchCase<unknown>[];
  close(): Promise<void>;
}

/** Writes the session three times (one copy per case) and returns the three cases. */
export async function sessionAppendFixture(
  entryCount: number,
  scratchDirectory: string,
): Promise<SessionAppendFixture> {
  const { entries } = generateSession({ entryCount, seed: 11 });
  const database = freshDatabase(scratchDirectory, `session-append-${entryCount}`);
  const store = new SqliteEventStore({ filename: database.filename });
  const uncached = await LongSession.write(
    new SessionStreams(store, { maxSessions: 0, maxEntries: 0 }),
    'without-cache',
    entries,
  );
  const cached = await LongSession.write(new SessionStreams(store), 'with-cache', entries);
  const keyedStreams = new SessionStreams(store);
  const keyed = await LongSession.write(keyedStreams, 'with-key', entries);
  const handler = new AppendEntriesHandler(keyedStreams, createPreparedTokenCounter('chars4'), systemClock);
  const group = `append one entry to a session of ${entries.length.toLocaleString('en-US')} entries (SQLite, one command)`;
  const details = { sessionEntries: entries.length };
  const cases: BenchCase<unknown>[] = [
    {
      name: `store/session-append/${entryCount}/no-cache`,
      group,
      role: 'baseline',
      label: 'no fold cache: read and fold the whole stream per command',
      unit: 'append',
      details,
      run: () => uncached.appendOne(),
    },
    {
      name: `store/session-append/${entryCount}/fold-cache`,
      group,
      role: 'subject',
      label: 'fold cache (engine default): read only the newer events',
      unit: 'append',
      details,
      run: () => cached.appendOne(),
    },
    {
      name: `store/session-append/${entryCount}/fold-cache-keyed`,
      group,
      role: 'subject',
      label: 'fold cache, as an append request with an idempotency key',
      unit: 'append',
      details,
      run: () => keyed.appendOneWithKey(handler),
    },
  ];
  return {
    cases,
    async close() {
      await store.close();
      database.remove();
    },
  };
}
