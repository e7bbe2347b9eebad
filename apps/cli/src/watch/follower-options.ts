// What a session file's follower is given (the sink, the log, its limits, where a previous run
// got to, the flush time) and the states it goes through.
import type { SessionFileFormat } from '@strata/session';
import type { FileCheckpoint } from './watch-checkpoint';
import type { WatchSink } from './watch-sink';

export interface FollowerLimits {
  /** The longest line waited for; a longer one stops the file. */
  readonly maxLineBytes: number;
  /** Bytes still to read past which the follower logs its progress (and then every as many). */
  readonly progressBytes: number;
}

export const DEFAULT_FOLLOWER_LIMITS: FollowerLimits = {
  maxLineBytes: 64 * 1024 * 1024,
  progressBytes: 16 * 1024 * 1024,
};

export interface FollowerOptions {
  readonly format: SessionFileFormat | 'auto';
  readonly sink: WatchSink;
  readonly log: (message: string) => void;
  /** Where a previous run got to; the file is then checked against it before it is followed. */
  readonly checkpoint?: FileCheckpoint;
  readonly limits?: FollowerLimits;
  readonly now?: () => number;
  /** Quiet time after which the entries held back that can be released are stored (none: never). */
  readonly flushAfterMs?: number;
}

export type FollowerState =
  | { readonly kind: 'verifying'; readonly target: FileCheckpoint }
  | { readonly kind: 'following' }
  | {
      readonly kind: 'stopped';
      readonly reason: string;
      /** Checked again when the file changes (size, time or inode); otherwise until restarted. */
      readonly recheck: boolean;
      readonly signature: string;
      readonly lastGood: FileCheckpoint | undefined;
    };

export function mebibytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

export function signatureOf(stats: { size: number; mtimeMs: number; ino: number; dev: number }): string {
  return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}`;
}
