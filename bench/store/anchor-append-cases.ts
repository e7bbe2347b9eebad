// Store-suite cases for the cost of the signed log (issues 14 and 24): appends through the engine's
// write side (`SessionStreams.execute` over the tenant-guarding store, as every append request
// runs) with the log on — the engine's anchor scheduler (at most one Ed25519 signature per session
// per second) and its checkpoints (here every second, ten times the default), chained into
// `store_log` — next to the same without it (`STRATA_ANCHORS=off`). Two shapes:
// one busy session (its anchors coalesced to one a second) and appends spread over 2,000 sessions
// in turn (each append is the first of its session's second, so nearly every one is signed: the
// worst case). One iteration appends 50 entries and then lets the event loop turn once, so the
// signing and the anchor write scheduled by those appends are inside the timed work.
import { SqliteEventStore } from '@strata/event-store';
import {
  AnchorScheduler,
  CheckpointScheduler,
  anchorLogOf,
  generateAnchorSigningKey,
} from '@strata/integrity';
import { SESSION_STREAM_PREFIX, type SessionEntry } from '@strata/session';
import { session } from '@strata/testing';
import { SessionStreams } from '../../apps/engine/src/session-streams/session-streams.service';
import { TenantGuardEventStore } from '../../apps/engine/src/tenancy/tenant-guard-event-store';
import { userTurnEntry } from '../projection/session-streams';
import type { BenchCase } from '../harness';
import { freshDatabase } from './sqlite-cases';

const APPENDS_PER_ITERATION = 50;

class AppendTarget {
  private readonly leaves = new Map<string, string>();
  private appended = 0;
  private turn = 0;

  constructor(
    readonly streams: SessionStreams,
    private readonly sessionIds: readonly string[],
  ) {}

  static async start(streams: SessionStreams, prefix: string, sessions: number): Promise<AppendTarget> {
    const sessionIds = Array.from({ length: sessions }, (_, index) => `${prefix}-${index}`);
    const target = new AppendTarget(streams, sessionIds);
    for (const sessionId of sessionIds) {
      const built = session({ sessionId, cwd: '/bench' }).user('Start').assistant('Ok');
      await streams.execute(sessionId, { type: 'StartSession', data: { header: built.header } });
      await streams.execute(sessionId, { type: 'AppendEntries', data: { entries: built.entries } });
      target.leaves.set(sessionId, built.entries[built.entries.length - 1]!.id);
    }
    return target;
  }

  /** Appends one entry to each of the next sessions in turn, then lets scheduled work run. */
  async appendBatch(): Promise<void> {
    for (let index = 0; index < APPENDS_PER_ITERATION; index += 1) {
      const sessionId = this.sessionIds[this.turn % this.sessionIds.length]!;
      this.turn += 1;
      this.appended += 1;
      const entry: SessionEntry = userTurnEntry(
        `anchor-${this.appended}`,
        this.leaves.get(sessionId)!,
        Date.UTC(2026, 0, 1) + this.appended,
      );
      await this.streams.execute(sessionId, { type: 'AppendEntries', data: { entries: [entry] } });
      this.leaves.set(sessionId, entry.id);
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
}

export interface AnchorAppendFixture {
  readonly cases: readonly BenchCase<unknown>[];
  /** Signatures made while the cases with anchoring on were measured, by shape. */
  signatures(): Readonly<Record<string, number>>;
  close(): Promise<void>;
}

export async function anchorAppendFixture(
  scratchDirectory: string,
  manySessions: number,
): Promise<AnchorAppendFixture> {
  const key = generateAnchorSigningKey();
  const opened: {
    store: SqliteEventStore;
    remove: () => void;
    scheduler?: AnchorScheduler;
    checkpoints?: CheckpointScheduler;
  }[] = [];
  const signatures: Record<string, number> = {};
  async function target(name: string, anchoring: boolean, sessions: number): Promise<AppendTarget> {
    const database = freshDatabase(scratchDirectory, `anchors-${name}`);
    const store = new SqliteEventStore({ filename: database.filename });
    let scheduler: AnchorScheduler | undefined;
    let checkpoints: CheckpointScheduler | undefined;
    if (anchoring) {
      checkpoints = new CheckpointScheduler({ store, log: anchorLogOf(store), key, intervalMs: 1_000 });
      checkpoints.start();
      signatures[name] = 0;
      scheduler = new AnchorScheduler({
        key,
        log: anchorLogOf(store),
        onWritten: (anchors) => {
          signatures[name] = (signatures[name] ?? 0) + anchors.length;
        },
      });
    }
    opened.push({
      store,
      remove: () => database.remove(),
      ...(scheduler !== undefined ? { scheduler } : {}),
      ...(checkpoints !== undefined ? { checkpoints } : {}),
    });
    const guarded = new TenantGuardEventStore(store, [
      {
        appended: (streamId, events, result) =>
          scheduler?.noteAppend(streamId, events, result, SESSION_STREAM_PREFIX),
      },
    ]);
    return AppendTarget.start(new SessionStreams(guarded), name, sessions);
  }
  const oneOff = await target('one-off', false, 1);
  const oneOn = await target('one-on', true, 1);
  const manyOff = await target('many-off', false, manySessions);
  const manyOn = await target('many-on', true, manySessions);
  // Sign what the set-up held and let every session's interval end, then count from zero: the
  // spread appends are then each the first of their session's second.
  for (const { scheduler } of opened) await scheduler?.flush();
  await new Promise((resolve) => setTimeout(resolve, 1_200));
  for (const name of Object.keys(signatures)) signatures[name] = 0;
  const oneGroup =
    'append one entry to one busy session (SessionStreams over SQLite): the signed log off vs on';
  const manyGroup = `append one entry to each of ${manySessions.toLocaleString('en-US')} sessions in turn: the signed log off vs on`;
  const common = { unit: 'append', operationsPerIteration: APPENDS_PER_ITERATION } as const;
  const cases: BenchCase<unknown>[] = [
    {
      ...common,
      name: 'store/anchors/one-session/off',
      group: oneGroup,
      role: 'baseline',
      label: 'STRATA_ANCHORS=off',
      run: () => oneOff.appendBatch(),
    },
    {
      ...common,
      name: 'store/anchors/one-session/on',
      group: oneGroup,
      role: 'subject',
      label: 'signed log on (anchors, a checkpoint a second)',
      run: () => oneOn.appendBatch(),
    },
    {
      ...common,
      name: 'store/anchors/many-sessions/off',
      group: manyGroup,
      role: 'baseline',
      label: 'STRATA_ANCHORS=off',
      details: { sessions: manySessions },
      run: () => manyOff.appendBatch(),
    },
    {
      ...common,
      name: 'store/anchors/many-sessions/on',
      group: manyGroup,
      role: 'subject',
      label: 'signed log on (a signature per append, a checkpoint a second)',
      details: { sessions: manySessions },
      run: () => manyOn.appendBatch(),
    },
  ];
  return {
    cases,
    signatures: () => ({ ...signatures }),
    async close() {
      for (const { store, remove, scheduler, checkpoints } of opened) {
        await scheduler?.close();
        await checkpoints?.close();
        await store.close();
        remove();
      }
    },
  };
}
