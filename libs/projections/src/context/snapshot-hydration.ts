// A hydration of the context projection that starts from the session's snapshot (decision
// 0019): the snapshot is loaded and checked (snapshot-saver.ts, session-snapshot.ts), the stream
// is read from the revision it was taken at, and it is used only when the first event read is
// exactly that event (same revision, id and global position). Then the view is restored and the
// later events applied as any read applies them. Otherwise — the stream was erased, erased and
// written again under the same id, or is shorter — the snapshot is reported and not used, and
// the caller reads the session from its events.
import type { EventStore, RecordedEvent } from '@strata/event-store';
import { sessionStreamName } from '@strata/session';
import type { SnapshotSaver } from './snapshot-saver';
import type { ApplyOutcome, SessionView } from './session-view';
import type { TokenCountSaver } from './token-count-saver';

/** From this many events after a snapshot, a hydration also takes the stored counts for them. */
export const STORED_COUNTS_AFTER_SNAPSHOT = 64;

export interface SnapshotHydrationDependencies {
  readonly store: EventStore;
  readonly snapshots: SnapshotSaver;
  readonly countSaver: TokenCountSaver | undefined;
  /** A new, empty view of the session, as the projection makes them. */
  newView(): SessionView;
  /** Applies one recorded event as a read does (validated; throws when the session must be set aside). */
  applyRecorded(view: SessionView, recorded: RecordedEvent): ApplyOutcome;
}

/** The session's view from its snapshot and the events after it; undefined when there is no usable snapshot. */
export async function hydrateFromSnapshot(
  sessionId: string,
  dependencies: SnapshotHydrationDependencies,
): Promise<SessionView | undefined> {
  const { snapshots, countSaver } = dependencies;
  const state = await snapshots.load(sessionId);
  if (state === undefined) return undefined;
  const tail: RecordedEvent[] = [];
  try {
    const stream = sessionStreamName(sessionId);
    for await (const recorded of dependencies.store.readStream(stream, { fromRevision: state.revision })) {
      tail.push(recorded);
    }
  } catch {
    tail.splice(0);
  }
  const [taken, ...after] = tail;
  if (
    taken === undefined ||
    taken.revision !== state.revision ||
    taken.id !== state.lastEventId ||
    taken.position !== state.position
  ) {
    snapshots.ignore(sessionId, 'the stream no longer holds the event the snapshot was taken at');
    return undefined;
  }
  const view = dependencies.newView();
  view.restore(state);
  if (countSaver !== undefined && after.length >= STORED_COUNTS_AFTER_SNAPSHOT)
    view.useStoredCounts(await countSaver.load(sessionId));
  for (const recorded of after) dependencies.applyRecorded(view, recorded);
  view.useStoredCounts(undefined);
  snapshots.usedSnapshot(state);
  return view;
}
