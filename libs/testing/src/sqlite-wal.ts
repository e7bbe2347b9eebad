// Reading a SQLite write-ahead log the way SQLite recovers it, for tests that need to see what
// reached the file: its frames of the current generation (the header's salts), which of them end
// a transaction (a commit frame records the database size after the commit), and where the log
// would be cut to tear a write. Format: sqlite.org/fileformat2.html, "The WAL File Format".
import { readFileSync, statSync, truncateSync } from 'node:fs';

const WAL_HEADER_BYTES = 32;
const FRAME_HEADER_BYTES = 24;

export interface WalCommit {
  /** The byte offset just past the commit frame (the log up to here holds the transaction). */
  readonly end: number;
  /** The frame's index in the log (0-based). */
  readonly frame: number;
}

export interface WalContents {
  readonly pageSize: number;
  /** Frames of the current generation (salts equal to the header's), in order. */
  readonly frames: number;
  readonly commits: readonly WalCommit[];
  readonly bytes: number;
}

/** The commits a WAL file holds (none when the file is missing or empty). */
export function readWal(walFile: string): WalContents {
  let content: Buffer;
  try {
    content = readFileSync(walFile);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      return { pageSize: 0, frames: 0, commits: [], bytes: 0 };
    throw error;
  }
  if (content.length < WAL_HEADER_BYTES)
    return { pageSize: 0, frames: 0, commits: [], bytes: content.length };
  const pageSize = content.readUInt32BE(8);
  const salt1 = content.readUInt32BE(16);
  const salt2 = content.readUInt32BE(20);
  const frameBytes = FRAME_HEADER_BYTES + pageSize;
  const commits: WalCommit[] = [];
  let frames = 0;
  for (let offset = WAL_HEADER_BYTES; offset + frameBytes <= content.length; offset += frameBytes) {
    if (content.readUInt32BE(offset + 8) !== salt1 || content.readUInt32BE(offset + 12) !== salt2) break;
    if (content.readUInt32BE(offset + 4) !== 0) commits.push({ end: offset + frameBytes, frame: frames });
    frames += 1;
  }
  return { pageSize, frames, commits, bytes: content.length };
}

/** How many transactions the WAL of `databaseFile` holds now. */
export function walCommitCount(databaseFile: string): number {
  return readWal(`${databaseFile}-wal`).commits.length;
}

/** Cuts the last `bytes` of the WAL of `databaseFile` (as a power cut can leave a log); the new size. */
export function tearWal(databaseFile: string, bytes: number): number {
  const walFile = `${databaseFile}-wal`;
  const size = Math.max(0, statSync(walFile).size - bytes);
  truncateSync(walFile, size);
  return size;
}
