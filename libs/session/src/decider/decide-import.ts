// The decision behind importing a session file, on top of the session decider: a new stream
// gets `StartSession` then `AppendEntries` on the folded state (so the decider's invariants
// hold for imported entries too), and a `MoveLeaf` only when the file's leaf (its last entry)
// is not where appending left it. A stream that already holds this very session needs nothing;
// one that holds different content is a conflict.
import type { SessionEntry, SessionHeader } from '../entries/entries';
import { decide, foldSessionEvents } from './decide';
import type { SessionEvent } from './session-events';
import { evolve, initialState, type ActiveSessionState, type SessionState } from './session-state';

export interface ImportSessionCommand {
  readonly type: 'ImportSession';
  readonly data: { readonly header: SessionHeader; readonly entries: readonly SessionEntry[] };
}

/** The stream of the session already holds different content; nothing was written. */
export class SessionImportConflictError extends Error {
  override readonly name = 'SessionImportConflictError';

  constructor(
    readonly sessionId: string,
    readonly difference: string,
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

function describeDifference(stored: ActiveSessionState, command: ImportSessionCommand): string | undefined {
  const { header, entries } = command.data;
  if (!sameJsonValue(stored.header, header)) return 'the session headers differ';
  const storedEntries = stored.entries();
  const sharedLength = Math.min(storedEntries.length, entries.length);
  for (let index = 0; index < sharedLength; index += 1) {
    const [storedEntry, imported] = [storedEntries[index]!, entries[index]!];
    if (!sameJsonValue(storedEntry, imported)) {
      return `entry ${index + 1} differs (${imported.id} in the file, ${storedEntry.id} stored)`;
    }
  }
  if (storedEntries.length !== entries.length) {
    return `the store holds ${storedEntries.length} entries, the file ${entries.length}`;
  }
  return undefined;
}

export function decideImport(command: ImportSessionCommand, state: SessionState): SessionEvent[] {
  if (state.status === 'active') {
    const difference = describeDifference(state, command);
    if (difference !== undefined) throw new SessionImportConflictError(state.header.id, difference);
    return [];
  }
  const { header, entries } = command.data;
  const started = decide({ type: 'StartSession', data: { header } }, state);
  const afterStart = foldSessionEvents(started, state);
  const appended = entries.length > 0 ? decide({ type: 'AppendEntries', data: { entries } }, afterStart) : [];
  const afterAppend = foldSessionEvents(appended, afterStart);
  const fileLeafId = entries[entries.length - 1]?.id ?? null;
  const moved =
    afterAppend.status === 'active' && afterAppend.leafId !== fileLeafId
      ? decide({ type: 'MoveLeaf', data: { leafId: fileLeafId } }, afterAppend)
      : [];
  return [...started, ...appended, ...moved];
}

/** The import decider: `decideImport` over the session's own state and evolution. */
export const importDecider = { decide: decideImport, evolve, initialState } as const;
