// The decision behind importing a session file, on top of the session decider: a new stream
// gets `StartSession` then `AppendEntries` on the folded state (so the decider's invariants
// hold for imported entries too), and a `MoveLeaf` only when the file's leaf (its last entry)
// is not where appending left it. A stream that already holds this very session needs nothing;
// one that holds different content is a conflict.
import { isDeepStrictEqual } from 'node:util';
import {
  decide,
  evolve,
  foldSessionEvents,
  initialState,
  type ActiveSessionState,
  type SessionEntry,
  type SessionEvent,
  type SessionHeader,
  type SessionState,
} from '@strata/session';
import type { Decider } from '../command-handling/handle-command';
import { SessionImportConflictError } from './session-store-errors';

export interface ImportSessionCommand {
  readonly type: 'ImportSession';
  readonly data: { readonly header: SessionHeader; readonly entries: readonly SessionEntry[] };
}

function describeDifference(stored: ActiveSessionState, command: ImportSessionCommand): string | undefined {
  const { header, entries } = command.data;
  if (!isDeepStrictEqual(stored.header, header)) return 'the session headers differ';
  const storedEntries = stored.entries();
  const sharedLength = Math.min(storedEntries.length, entries.length);
  for (let index = 0; index < sharedLength; index += 1) {
    const [stored, imported] = [storedEntries[index]!, entries[index]!];
    if (!isDeepStrictEqual(stored, imported)) {
      return `entry ${index + 1} differs (${imported.id} in the file, ${stored.id} stored)`;
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

export const importDecider: Decider<ImportSessionCommand, SessionEvent, SessionState> = {
  decide: decideImport,
  evolve,
  initialState,
};
