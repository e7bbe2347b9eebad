// Where `strata watch` stores what it reads: a port with one operation, appending a part of a
// session file (its entries from `fromEntry` on) under the sync rule, and two adapters: the
// event store itself (`--store`) and an engine over HTTP (`--url`). A part the store disagrees
// with is a `WatchConflict` (the file is then no longer followed); any other failure is
// temporary and the same part is sent again later.
import { type EventStore } from '@strata/event-store';
import { writeSessionImport } from '@strata/session-files';
import { SessionImportConflictError, type SessionEntry, type SessionHeader } from '@strata/session';

/** Entries of one file, after the first `fromEntry` of its entries, to store in one append. */
export interface SessionFilePart {
  readonly header: SessionHeader;
  readonly entries: readonly SessionEntry[];
  readonly fromEntry: number;
  /** The 1-based file line of each entry. */
  readonly entryLines: readonly number[];
}

export interface PartStored {
  /** Entries this append added (fewer than the part's when the store held some already). */
  readonly appended: number;
}

/** The store disagrees with the file: `reason` says where (line and entry ids when known). */
export class WatchConflict extends Error {
  override readonly name = 'WatchConflict';
}

/** The port: one atomic append per part. */
export interface WatchSink {
  /** What the sink writes to, for the log. */
  readonly description: string;
  appendPart(part: SessionFilePart): Promise<PartStored>;
  close(): Promise<void>;
}

/** Who writes, as recorded in each event's metadata. */
export const WATCH_ACTOR = 'strata-cli:watch';

/** The conflict in the file's words: its line when the part names it. */
export function conflictReason(
  part: SessionFilePart,
  entryIndex: number | undefined,
  entryId: string | undefined,
  storedEntryId: string | undefined,
  detail: string,
): string {
  if (entryIndex === undefined || entryIndex < 0) return detail;
  const line = part.entryLines[entryIndex - part.fromEntry];
  const where = line !== undefined ? `line ${line} (entry ${entryIndex + 1})` : `entry ${entryIndex + 1}`;
  return `${where} differs from the stored session: ${entryId ?? '?'} in the file, ${storedEntryId ?? 'nothing'} stored`;
}

/** Writes parts straight into an event store, as `strata import` does. */
export class EventStoreSink implements WatchSink {
  constructor(
    private readonly store: EventStore,
    readonly description: string,
  ) {}

  async appendPart(part: SessionFilePart): Promise<PartStored> {
    try {
      const report = await writeSessionImport(
        this.store,
        {
          header: part.header,
          entries: part.entries,
          fromEntry: part.fromEntry,
          entryLines: part.entryLines,
          sourceVersion: 3,
          migrated: false,
          skipped: [],
          repaired: [],
        },
        { actor: WATCH_ACTOR },
      );
      return { appended: report.appended };
    } catch (error) {
      if (error instanceof SessionImportConflictError) {
        const { firstDifference } = error;
        throw new WatchConflict(
          conflictReason(
            part,
            firstDifference?.entryIndex,
            firstDifference?.entryId,
            firstDifference?.storedEntryId,
            error.difference,
          ),
        );
      }
      throw error;
    }
  }

  close(): Promise<void> {
    return this.store.close();
  }
}
