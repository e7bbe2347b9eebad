// The checkpoint of `strata watch`: per followed file, how far it was read and stored. Read once
// at start-up (validated: a trust boundary), written whole to a temporary file and renamed over
// the old one, so a crash leaves the old checkpoint or the new one, never half of one.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';

/** The largest checkpoint file read (a few hundred bytes per file followed). */
export const MAX_CHECKPOINT_BYTES = 64 * 1024 * 1024;

const fileCheckpointSchema = z.strictObject({
  /** Bytes of the file read and stored: the end of the last complete line taken. */
  offset: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  /** Entries the lines before `offset` made (all stored). */
  entryCount: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  /** SHA-256 (hex) of the file's first `offset` bytes. */
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  /** The file's device and inode when it was read. */
  dev: z.number().int().min(0),
  ino: z.number().int().min(0),
  format: z.enum(['pi', 'claude-code', 'codex']).optional(),
  sessionId: z.string().max(512).optional(),
});

const checkpointSchema = z.strictObject({
  version: z.literal(1),
  files: z.record(z.string().max(4096), fileCheckpointSchema),
});

export type FileCheckpoint = z.infer<typeof fileCheckpointSchema>;

/** What was read of each file, by absolute path. */
export type WatchCheckpoint = ReadonlyMap<string, FileCheckpoint>;

export class CheckpointError extends Error {
  override readonly name = 'CheckpointError';
}

/** The checkpoint in `path`; empty when the file does not exist. Throws CheckpointError when it is not one. */
export function readWatchCheckpoint(path: string): Map<string, FileCheckpoint> {
  let text: string;
  try {
    const bytes = readFileSync(path);
    if (bytes.length > MAX_CHECKPOINT_BYTES) {
      throw new CheckpointError(
        `${path} is larger than ${MAX_CHECKPOINT_BYTES} bytes: not a watch checkpoint`,
      );
    }
    text = bytes.toString('utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new Map();
    if (error instanceof CheckpointError) throw error;
    throw new CheckpointError(`cannot read the checkpoint ${path}: ${String(error)}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new CheckpointError(`the checkpoint ${path} is not JSON`);
  }
  const parsed = checkpointSchema.safeParse(value);
  if (!parsed.success) {
    const [issue] = parsed.error.issues;
    throw new CheckpointError(
      `the checkpoint ${path} is not a watch checkpoint: ${issue?.path.join('.') ?? ''}: ${issue?.message ?? ''}`,
    );
  }
  return new Map(Object.entries(parsed.data.files));
}

/** Writes the checkpoint atomically (temporary file, then rename). */
export function writeWatchCheckpoint(path: string, files: WatchCheckpoint): void {
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  const document = {
    version: 1,
    files: Object.fromEntries([...files].sort(([a], [b]) => a.localeCompare(b))),
  };
  writeFileSync(temporary, `${JSON.stringify(document, null, 1)}\n`);
  renameSync(temporary, path);
}
