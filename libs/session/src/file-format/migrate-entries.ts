// Upcasting of older pi session files, one raw JSON object at a time (reference §1.7):
// v1 → v2 gives entries ids and parents and turns a compaction's file index into an entry id;
// v2 → v3 renames the `hookMessage` role to `custom`. Validation happens after migration.
import { CURRENT_SESSION_VERSION } from '../entries/entries';
import type { SessionFileProblemCode } from './session-file-error';
import { isJsonObject, withKey, withRenamedKey, type JsonObject } from './json-lines';

export type MigrationOutcome =
  | { readonly ok: true; readonly value: JsonObject }
  | { readonly ok: false; readonly code: SessionFileProblemCode; readonly reason: string };

/** The header at the current version; every other field (v1 provider, modelId…) is kept. */
export function migrateHeader(header: JsonObject): JsonObject {
  return withKey(header, 'version', CURRENT_SESSION_VERSION, 'type');
}

/** The entry with its tree identity, written as `type, id, parentId` first. */
export function withEntryIdentity(entry: JsonObject, id: string, parentId: string | null): JsonObject {
  const { type, id: _previousId, parentId: _previousParentId, ...rest } = entry;
  return { type, id, parentId, ...rest };
}

/**
 * The v1 → v2 field changes of one entry. `idAtFileIndex` resolves a file index (header = 0)
 * to the id given to the entry there, or undefined when no accepted entry precedes it there. Also adds `model: "provider/modelId"` to a v1
 * model_change (the reference leaves those unmigrated; see docs/compatibility.md).
 */
export function migrateV1EntryFields(
  entry: JsonObject,
  idAtFileIndex: (fileIndex: number) => string | undefined,
): MigrationOutcome {
  if (entry.type === 'compaction') {
    const index = entry.firstKeptEntryIndex;
    if (index === undefined && typeof entry.firstKeptEntryId === 'string') return { ok: true, value: entry };
    if (typeof index !== 'number' || !Number.isInteger(index)) {
      return {
        ok: false,
        code: 'schema-violation',
        reason: 'schema violation at firstKeptEntryIndex: a v1 compaction needs an integer index',
      };
    }
    const id = idAtFileIndex(index);
    if (id === undefined) {
      return {
        ok: false,
        code: 'invalid-reference',
        reason: `firstKeptEntryIndex ${index} does not point at an earlier entry of the file`,
      };
    }
    return { ok: true, value: withRenamedKey(entry, 'firstKeptEntryIndex', 'firstKeptEntryId', id) };
  }
  if (
    entry.type === 'model_change' &&
    entry.model === undefined &&
    typeof entry.provider === 'string' &&
    typeof entry.modelId === 'string'
  ) {
    return { ok: true, value: { ...entry, model: `${entry.provider}/${entry.modelId}` } };
  }
  return { ok: true, value: entry };
}

/** v2 → v3: a message with the legacy role `hookMessage` becomes role `custom`. */
export function migrateV2EntryToV3(entry: JsonObject): JsonObject {
  if (entry.type !== 'message' || !isJsonObject(entry.message) || entry.message.role !== 'hookMessage') {
    return entry;
  }
  return { ...entry, message: { ...entry.message, role: 'custom' } };
}
