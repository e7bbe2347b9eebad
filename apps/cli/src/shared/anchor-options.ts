// What the commands need of anchors: the signing key (`STRATA_SIGNING_KEY_FILE`, else the key in
// `./data`, made there on first use, as the engine does), whether anchoring is on
// (`STRATA_ANCHORS`), the public keys that check anchors (`--public-key`, else the local key),
// and the anchors to match (`--anchors <file>`, else the store's own log).
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type EventStore } from '@strata/event-store';
import {
  ANCHORS_VARIABLE,
  DEFAULT_PUBLIC_KEY_NAME,
  DEFAULT_SIGNING_KEY_NAME,
  SIGNING_KEY_FILE_VARIABLE,
  SigningKeyError,
  logFileCandidates,
  anchorLogCandidates,
  anchorLogIfAny,
  anchorsEnabled,
  defaultDataDirectory,
  keyFileList,
  loadOrCreateSigningKey,
  readPublicKey,
  writeCheckpoint,
  type AnchorCandidate,
  type ErasureSigner,
  type AnchorPublicKey,
  type AnchorSigningKey,
} from '@strata/integrity';
import { CliError, type CliIo } from '../cli-io';

export const anchorOptionsUsage = '[--anchors <file>] [--public-key <file>]...';

/** The help lines of `--anchors` and `--public-key`, each indented by two spaces. */
export const anchorOptionsHelp =
  "  --anchors: anchors to match (JSON Lines from `strata anchors export`), else the store's anchor log\n" +
  `  --public-key: a key that signed them (PEM, repeatable), else ${SIGNING_KEY_FILE_VARIABLE} or ./data/${DEFAULT_PUBLIC_KEY_NAME} ` +
  'and the earlier keys of STRATA_ANCHOR_PUBLIC_KEYS (comma-separated)';

/** Whether the commands that write sign anchors (`STRATA_ANCHORS`). */
export function anchoringOn(io: CliIo): boolean {
  try {
    return anchorsEnabled(io.env[ANCHORS_VARIABLE]);
  } catch (error) {
    throw new CliError((error as Error).message, 2);
  }
}

/** The key anchors are signed with, made in `./data` when there is none. */
export function signingKeyOf(io: CliIo): AnchorSigningKey {
  try {
    const file = io.env[SIGNING_KEY_FILE_VARIABLE]?.trim() || undefined;
    return loadOrCreateSigningKey({
      ...(file !== undefined ? { file } : {}),
      dataDirectory: defaultDataDirectory(io.cwd),
      cwd: io.cwd,
    }).key;
  } catch (error) {
    if (error instanceof SigningKeyError) throw new CliError(`signing key: ${error.message}`);
    throw error;
  }
}

/** The local key's file: `STRATA_SIGNING_KEY_FILE`, else the public (or private) key in `./data`. */
function localKeyFile(io: CliIo): string | undefined {
  const configured = io.env[SIGNING_KEY_FILE_VARIABLE]?.trim() || undefined;
  if (configured !== undefined) return resolve(io.cwd, configured);
  const dataDirectory = defaultDataDirectory(io.cwd);
  return [join(dataDirectory, DEFAULT_PUBLIC_KEY_NAME), join(dataDirectory, DEFAULT_SIGNING_KEY_NAME)].find(
    (file) => existsSync(file),
  );
}

/** Earlier keys trusted as the engine trusts them: `STRATA_ANCHOR_PUBLIC_KEYS`, comma-separated. */
function rotatedKeyFiles(io: CliIo): string[] {
  return keyFileList(io.env['STRATA_ANCHOR_PUBLIC_KEYS']).map((file) => resolve(io.cwd, file));
}

/**
 * The public keys given, else the local one and the earlier keys of `STRATA_ANCHOR_PUBLIC_KEYS`
 * (none when there is no local key and no earlier one).
 */
export function publicKeysOf(io: CliIo, files: readonly string[]): Map<string, AnchorPublicKey> {
  const local = localKeyFile(io);
  const paths =
    files.length > 0
      ? files.map((file) => resolve(io.cwd, file))
      : [...(local !== undefined ? [local] : []), ...rotatedKeyFiles(io)];
  const keys = new Map<string, AnchorPublicKey>();
  for (const path of paths) {
    try {
      const key = readPublicKey(path);
      keys.set(key.keyId, key);
    } catch (error) {
      if (error instanceof SigningKeyError) throw new CliError(`public key: ${error.message}`, 2);
      throw error;
    }
  }
  return keys;
}

/** The path of an anchor file given on the command line; refuses a file that does not exist. */
export function anchorFilePath(io: CliIo, file: string): string {
  const path = resolve(io.cwd, file);
  if (!existsSync(path)) throw new CliError(`cannot read ${file}: no such file`);
  return path;
}

/**
 * The anchors an exported log or anchor file attests (its anchors, and the heads of its
 * checkpoints that `keys` verify); refuses a file that does not exist.
 */
export function anchorFile(
  io: CliIo,
  file: string,
  keys: ReadonlyMap<string, AnchorPublicKey>,
): AsyncIterable<AnchorCandidate> {
  return logFileCandidates(anchorFilePath(io, file), file, keys);
}

/** The store's anchors of one stream (or all), or none for a store without a log. */
export async function* storeAnchors(store: EventStore, streamId?: string): AsyncGenerator<AnchorCandidate> {
  const log = anchorLogIfAny(store);
  if (log !== undefined) yield* anchorLogCandidates(log, streamId !== undefined ? { streamId } : {});
}

/** How a command that writes signs into the store's log (decision 0018): its erasures and a checkpoint at its end. */
export interface CliLogWriting {
  /** Signs erasures before they are carried out; undefined when anchoring is off or the store keeps no log. */
  readonly erasureSigner: ErasureSigner | undefined;
  /** Writes a checkpoint of the store (nothing when anchoring is off or nothing changed). */
  checkpoint(): Promise<void>;
}

export function cliLogWriting(io: CliIo, store: EventStore): CliLogWriting {
  const log = anchoringOn(io) ? anchorLogIfAny(store) : undefined;
  if (log === undefined) return { erasureSigner: undefined, checkpoint: () => Promise.resolve() };
  const key = signingKeyOf(io);
  return {
    erasureSigner: { log, key },
    checkpoint: async () => {
      await writeCheckpoint(store, log, key);
    },
  };
}
