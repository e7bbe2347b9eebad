// The decision behind importing a session file, on top of the session decider: a new stream
// gets `StartSession` then `AppendEntries` on the folded state (so the decider's invariants
// hold for imported entries too), and a `MoveLeaf` only when the file's leaf (its last entry)
// is not where appending left it. A stream that already holds this very session needs nothing.
// A stream whose entries are the first entries of the file (the file grew since it was
// imported) gets the rest in one `AppendEntries`: syncing a grown file. A part of a file (its
// entries from `fromEntry` on, as a watcher reads them) is synced the same way: the entries it
// shares with the store must be equal, and the store must hold every entry before it. Anything
// else is a conflict naming the first line that differs.
import type { SessionEntry, SessionHeader } from '../entries/entries';
import { decide, foldSessionEvents } from './decide';
import type { SessionEvent } from './session-events';
import { evolve, initialState, type ActiveSessionState, type SessionState } from './session-state';

export interface ImportSessionCommand {
  readonly type: 'ImportSession';
  readonly data: {
    readonly header: SessionHeader;
    /** The file's entries, in file order: all of them, or those from entry `fromEntry` on. */
    readonly entries: readonly SessionEntry[];
    /**
     * When given, `entries` are a part of the file: its entries after the first `fromEntry`,
     * which the store must already hold; the file may go on after them. Without it, `entries`
     * are the whole file and the store may hold no entry the file lacks.
     */
    readonly fromEntry?: number;
    /** The 1-based file line of each of `entries`, named by a conflict. */
    readonly entryLines?: readonly number[];
  };
}

/** Where a file first differs from its stored session. */
export interface ImportDifference {
  /** The 1-based file line, when the command gave lines (1 for the header). */
  readonly line?: number;
  /** The 0-based position of the entry among the file's entries (-1 for the header). */
  readonly entryIndex: number;
  /** The id of the entry in the file, when it has one there. */
  readonly entryId?: string;
  /** The id of the entry stored at that position, when the store holds one. */
  readonly storedEntryId?: string;
}

/** The stream of the session already holds different content; nothing was written. */
export class SessionImportConflictError extends Error {
  override readonly name = 'SessionImportConflictError';

  constructor(
    readonly sessionId: string,
    readonly difference: string,
    /** Where the file first differs; undefined when it differs only in length. */
    readonly firstDifference?: ImportDifference,
    /** How many entries the store holds. */
    readonly storedEntries?: number,
  ) {
    super(`session ${sessionId} is already stored with different content: ${difference}`);
  }
}

/**
 * Whether two JSON values are the same: objects by their keys in any order, a key holding
 * `undefined` being no key at all, as once written and read back.
 */
export function sameJsonValue(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) return false;
  if (Array.isArray(left) !== Array.isArray(right)) return false;
  if (Array.isArray(left) && Array.isArray(right)) {
    return left.length === right.length && left.every((item, index) => sameJsonValue(item, right[index]));
  }
  const leftRecord = left as Readonly<Record<string, unknown>>;
  const rightRecord = right as Readonly<Record<string, unknown>>;
  const leftKeys = Object.keys(leftRecord).filter((key) => leftRecord[key] !== undefined);
  const rightKeys = Object.keys(rightRecord).filter((key) => rightRecord[key] !== undefined);
  return (
    leftKeys.length === rightKeys.length &&
    leftKeys.every(
      (key) => Object.hasOwn(rightRecord, key) && sameJsonValue(leftRecord[key], rightRecord[key]),
    )
  );
}

function conflictAt(
  command: ImportSessionCommand,
  position: number,
  stored: SessionEntry | undefined,
  storedEntries: number,
): SessionImportConflictError {
  const { header, entries, entryLines, fromEntry = 0 } = command.data;
  const entry = entries[position];
  const line = entryLines?.[position];
  const entryIndex = fromEntry + position;
  const where = line !== undefined ? `line ${line} (entry ${entryIndex + 1})` : `entry ${entryIndex + 1}`;
  const difference = `${where} differs: ${entry?.id ?? '?'} in the file, ${stored?.id ?? 'nothing'} stored`;
  return new SessionImportConflictError(
    header.id,
    difference,
    {
      ...(line !== undefined ? { line } : {}),
      entryIndex,
      ...(entry !== undefined ? { entryId: entry.id } : {}),
      ...(stored !== undefined ? { storedEntryId: stored.id } : {}),
    },
    storedEntries,
  );
}

/** The entries of the command the store lacks; throws when the file and the store disagree. */
function missingEntries(stored: ActiveSessionState, command: ImportSessionCommand): readonly SessionEntry[] {
  const { header, entries, fromEntry } = command.data;
  const storedEntries = stored.entries();
  const held = storedEntries.length;
  if (!sameJsonValue(stored.header, header)) {
    throw new SessionImportConflictError(
      header.id,
      'the session headers differ',
      { line: 1, entryIndex: -1 },
      held,
    );
  }
  const start = fromEntry ?? 0;
  if (start > held) {
    throw new SessionImportConflictError(
      header.id,
      `the store holds ${held} entries, fewer than the ${start} before this part of the file`,
      undefined,
      held,
    );
  }
  const shared = Math.min(entries.length, held - start);
  for (let position = 0; position < shared; position += 1) {
    const storedEntry = storedEntries[start + position]!;
    if (!sameJsonValue(storedEntry, entries[position]))
      throw conflictAt(command, position, storedEntry, held);
  }
  const fileLength = start + entries.length;
  if (fromEntry === undefined && held > fileLength) {
    throw new SessionImportConflictError(
      header.id,
      `the store holds ${held} entries, the file only ${fileLength} (the store's first ${fileLength})`,
      undefined,
      held,
    );
  }
  return entries.slice(shared);
}

function appendAndMoveLeaf(entries: readonly SessionEntry[], state: SessionState): SessionEvent[] {
  const appended = entries.length > 0 ? decide({ type: 'AppendEntries', data: { entries } }, state) : [];
  const afterAppend = foldSessionEvents(appended, state);
  const fileLeafId = entries[entries.length - 1]?.id ?? null;
  const moved =
    afterAppend.status === 'active' && afterAppend.leafId !== fileLeafId
      ? decide({ type: 'MoveLeaf', data: { leafId: fileLeafId } }, afterAppend)
      : [];
  return [...appended, ...moved];
}

export function decideImport(command: ImportSessionCommand, state: SessionState): SessionEvent[] {
  if (state.status === 'active') {
    const missing = missingEntries(state, command);
    return missing.length > 0 ? appendAndMoveLeaf(missing, state) : [];
  }
  const { header, entries, fromEntry } = command.data;
  if (fromEntry !== undefined && fromEntry > 0) {
    throw new SessionImportConflictError(
      header.id,
      `the store holds no entries, fewer than the ${fromEntry} before this part of the file`,
      undefined,
      0,
    );
  }
  const started = decide({ type: 'StartSession', data: { header } }, state);
  return [...started, ...appendAndMoveLeaf(entries, foldSessionEvents(started, state))];
}

/** The import decider: `decideImport` over the session's own state and evolution. */
export const importDecider = { decide: decideImport, evolve, initialState } as const;
