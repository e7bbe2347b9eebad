// Following one session file as it is written: read what was appended since the last step (at
// most a budget of bytes), give its complete lines to the format's line reader (a partial last
// line waits for its newline), and store the entries they make in one append of a part of the
// file (its entries from the count already stored on). The file's first `offset` bytes are
// hashed as they are read; a file that got shorter, is another file (device and inode) or no
// longer ends what was read the same way is checked again from its start against that hash,
// and when it differs the file is no longer followed, and the log says why, instead of guessing
// what it now means. Resuming from a checkpoint is the same check: the file's first `offset`
// bytes are read again through a new line reader (which so gets the state it had) and must hash
// as recorded.
import { createHash, type Hash } from 'node:crypto';
import { open, stat, type FileHandle } from 'node:fs/promises';
import {
  createSessionLineReader,
  detectFollowedFormat,
  SessionFileError,
  splitOriginalLines,
  type SessionEntry,
  type SessionFileFormat,
  type SessionLineReader,
} from '@strata/session';
import type { FileCheckpoint } from './watch-checkpoint';
import { WatchConflict, type SessionFilePart, type WatchSink } from './watch-sink';

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
}

/** Bytes kept of what was read first (the header line names the session) and last, compared with the file at every step. */
const HEAD_BYTES = 1024;
const TAIL_BYTES = 64;
const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 10_000;
const NEWLINE = 0x0a;

type FollowerState =
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

interface Unsent {
  readonly part: SessionFilePart;
  readonly bytes: Buffer;
}

function mebibytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

function signatureOf(stats: { size: number; mtimeMs: number; ino: number; dev: number }): string {
  return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}`;
}

export class SessionFileFollower {
  private state: FollowerState;
  private reader: SessionLineReader | undefined;
  private hash: Hash = createHash('sha256');
  private offset = 0;
  private entryCount = 0;
  private readPosition = 0;
  private pending: Buffer = Buffer.alloc(0);
  private tail: Buffer = Buffer.alloc(0);
  private head: Buffer = Buffer.alloc(0);
  private birthtimeMs = 0;
  private dev = 0;
  private ino = 0;
  private started = false;
  private unsent: Unsent | undefined;
  private retryAt = 0;
  private retryDelay = FIRST_RETRY_MS;
  private announced = false;
  private nextProgressAt = Number.POSITIVE_INFINITY;
  private lastSize = 0;
  private readonly limits: FollowerLimits;
  private readonly now: () => number;

  constructor(
    readonly path: string,
    private readonly options: FollowerOptions,
  ) {
    this.limits = options.limits ?? DEFAULT_FOLLOWER_LIMITS;
    this.now = options.now ?? Date.now;
    this.state =
      options.checkpoint !== undefined && options.checkpoint.offset > 0
        ? { kind: 'verifying', target: options.checkpoint }
        : { kind: 'following' };
  }

  /** Whether the follower has more to do right away (unread bytes, or a part to send again). */
  get busy(): boolean {
    if (this.state.kind === 'stopped') return false;
    if (this.unsent !== undefined) return this.now() >= this.retryAt;
    return this.lastSize > this.readPosition;
  }

  get stopped(): boolean {
    return this.state.kind === 'stopped';
  }

  /** What to record of the file: its last state known to be stored. */
  checkpoint(): FileCheckpoint | undefined {
    if (this.state.kind === 'verifying') return this.state.target;
    if (this.state.kind === 'stopped') return this.state.lastGood;
    return this.current();
  }

  private current(): FileCheckpoint | undefined {
    if (this.offset === 0) return undefined;
    const header = this.reader?.header;
    return {
      offset: this.offset,
      entryCount: this.entryCount,
      sha256: this.hash.copy().digest('hex'),
      dev: this.dev,
      ino: this.ino,
      ...(this.reader !== undefined ? { format: this.reader.format } : {}),
      ...(header !== undefined ? { sessionId: header.id } : {}),
    };
  }

  /** Reads and stores what was appended, at most `budget` bytes. Returns the bytes read. */
  async step(budget: number): Promise<number> {
    if (this.state.kind === 'stopped') {
      if (!this.state.recheck || !(await this.changedSinceStop(this.state.signature))) return 0;
      this.restart(this.state.lastGood);
      this.resumed = true;
    }
    if (this.unsent !== undefined) {
      if (this.now() < this.retryAt) return 0;
      if (!(await this.send(this.unsent))) return 0;
    }
    let handle: FileHandle;
    try {
      handle = await open(this.path, 'r');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      this.stop(
        code === 'ENOENT' ? 'it was removed' : `it cannot be read (${code ?? String(error)})`,
        true,
        '',
      );
      return 0;
    }
    try {
      return await this.stepOpen(handle, budget);
    } finally {
      await handle.close();
    }
  }

  private async changedSinceStop(signature: string): Promise<boolean> {
    try {
      return signatureOf(await stat(this.path)) !== signature;
    } catch {
      return signature !== '';
    }
  }

  private async stepOpen(handle: FileHandle, budget: number): Promise<number> {
    const stats = await handle.stat();
    this.lastSize = stats.size;
    const signature = signatureOf(stats);
    if (this.state.kind === 'following' && this.offset > 0) {
      const moved =
        stats.dev !== this.dev || stats.ino !== this.ino || stats.birthtimeMs !== this.birthtimeMs;
      if (moved || stats.size < this.offset || !(await this.endsAsRead(handle))) {
        this.restart(this.current());
      }
    }
    if (this.state.kind === 'verifying') return this.verify(handle, stats, budget, signature);
    if (this.resumed) {
      this.resumed = false;
      this.options.log(`${this.path}: followed again, from its start (nothing of it was stored before)`);
    }
    this.dev = stats.dev;
    this.ino = stats.ino;
    this.birthtimeMs = stats.birthtimeMs;
    if (!this.announced) {
      this.announced = true;
      this.options.log(`following ${this.path} from byte ${this.offset} (${this.entryCount} entries stored)`);
    }
    return this.follow(handle, stats.size, budget, signature);
  }

  /** Whether the file still holds, at its start and just before `offset`, the bytes read there. */
  private async endsAsRead(handle: FileHandle): Promise<boolean> {
    for (const [kept, position] of [
      [this.head, 0],
      [this.tail, this.offset - this.tail.length],
    ] as const) {
      if (kept.length === 0) continue;
      const bytes = Buffer.alloc(kept.length);
      const { bytesRead } = await handle.read(bytes, 0, bytes.length, position);
      if (bytesRead !== bytes.length || !bytes.equals(kept)) return false;
    }
    return true;
  }

  /** Starts again from byte 0, to check the file against `target` (or to read it anew without one). */
  private restart(target: FileCheckpoint | undefined): void {
    this.reader = undefined;
    this.hash = createHash('sha256');
    this.offset = 0;
    this.entryCount = 0;
    this.readPosition = 0;
    this.pending = Buffer.alloc(0);
    this.tail = Buffer.alloc(0);
    this.head = Buffer.alloc(0);
    this.unsent = undefined;
    this.started = false;
    this.state = target !== undefined ? { kind: 'verifying', target } : { kind: 'following' };
  }

  private stop(reason: string, recheck: boolean, signature: string): void {
    const previous = this.state.kind === 'stopped' ? this.state.reason : undefined;
    const lastGood = this.checkpoint();
    this.state = { kind: 'stopped', reason, recheck, signature, lastGood };
    this.unsent = undefined;
    if (previous === reason) return;
    const stored = lastGood?.offset ?? 0;
    const until = !recheck
      ? 'it is not read again until strata watch is restarted'
      : stored > 0
        ? `it is not read again until it starts once more with the ${stored} bytes already stored ` +
          '(looked at each time the file changes), or until its entry is removed from the checkpoint file'
        : 'it is read again from its start when it changes';
    this.options.log(`${this.path}: ${reason}; ${until}`);
  }

  private async readAt(handle: FileHandle, position: number, length: number): Promise<Buffer> {
    const bytes = Buffer.alloc(length);
    const { bytesRead } = await handle.read(bytes, 0, length, position);
    return bytesRead === length ? bytes : bytes.subarray(0, bytesRead);
  }

  private progress(total: number, doing: string): void {
    if (this.readPosition < this.nextProgressAt) return;
    this.options.log(
      `${this.path}: ${doing}, ${mebibytes(this.readPosition)} of ${mebibytes(total)} read (${this.entryCount} entries)`,
    );
    this.nextProgressAt = this.readPosition + this.limits.progressBytes;
  }

  private startProgress(total: number): void {
    if (
      this.nextProgressAt !== Number.POSITIVE_INFINITY ||
      total - this.readPosition < this.limits.progressBytes
    )
      return;
    this.nextProgressAt = this.readPosition + this.limits.progressBytes;
  }

  /** Reads the file again up to the recorded offset: the same bytes rebuild the reader's state. */
  private async verify(
    handle: FileHandle,
    stats: { size: number; dev: number; ino: number; birthtimeMs: number },
    budget: number,
    signature: string,
  ): Promise<number> {
    const { target } = this.state as { kind: 'verifying'; target: FileCheckpoint };
    if (stats.size < target.offset) {
      this.stop(
        `cut short: it now holds ${stats.size} bytes, fewer than the ${target.offset} already stored`,
        true,
        signature,
      );
      return 0;
    }
    this.startProgress(target.offset);
    const length = Math.min(budget, target.offset - this.readPosition);
    const bytes = await this.readAt(handle, this.readPosition, length);
    this.readPosition += bytes.length;
    this.pending = this.pending.length > 0 ? Buffer.concat([this.pending, bytes]) : bytes;
    const lastNewline = this.pending.lastIndexOf(NEWLINE);
    if (lastNewline >= 0 || this.readPosition === target.offset) {
      const complete = this.pending.subarray(0, lastNewline + 1);
      this.pending = this.pending.subarray(lastNewline + 1);
      if (!this.readLines(complete, signature, true)) return bytes.length;
      this.commit(complete, this.converted.length);
    }
    this.progress(target.offset, 'checking it against the checkpoint');
    if (this.readPosition < target.offset) return bytes.length;
    const same =
      this.pending.length === 0 &&
      this.hash.copy().digest('hex') === target.sha256 &&
      this.entryCount === target.entryCount;
    if (!same) {
      const inode =
        stats.dev !== target.dev || stats.ino !== target.ino ? ' (it is a new file at the same path)' : '';
      this.stop(
        `rewritten: its first ${target.offset} bytes are no longer the ones already stored${inode}`,
        true,
        signature,
      );
      return bytes.length;
    }
    this.state = { kind: 'following' };
    this.dev = stats.dev;
    this.ino = stats.ino;
    this.birthtimeMs = stats.birthtimeMs;
    this.started = this.entryCount > 0;
    if (this.resumed) {
      this.resumed = false;
      this.options.log(
        `${this.path}: followed again: it starts with the ${target.offset} bytes already stored; storing what comes after them`,
      );
    }
    return bytes.length;
  }

  /** Set when a stopped file changed and is checked again, until it is followed (said once in the log). */
  private resumed = false;

  /** Entries of the lines read last, with the line each came from. */
  private converted: { entry: SessionEntry; line: number }[] = [];

  /** Gives complete lines to the reader (made on the first lines); false when the file stopped or the format is not known yet. */
  private readLines(complete: Buffer, signature: string, verifying: boolean): boolean {
    this.converted = [];
    if (complete.length === 0) return true;
    try {
      if (this.reader === undefined) {
        const format =
          this.options.format !== 'auto'
            ? this.options.format
            : detectFollowedFormat(splitOriginalLines(complete));
        if (format === undefined) {
          if (verifying)
            throw new SessionFileError({
              line: 1,
              code: 'missing-header',
              reason: 'its format cannot be told',
            });
          this.pending = Buffer.concat([complete, this.pending]);
          return false;
        }
        this.reader = createSessionLineReader(format);
      }
      const reader = this.reader;
      for (const text of splitOriginalLines(complete, reader.linesRead + 1)) {
        const line = reader.linesRead + 1;
        for (const entry of reader.convert([text])) this.converted.push({ entry, line });
      }
      return true;
    } catch (error) {
      if (!(error instanceof SessionFileError)) throw error;
      this.stop(`line ${error.line}: ${error.reason} (${error.code})`, true, signature);
      return false;
    }
  }

  private commit(bytes: Buffer, entries: number): void {
    if (bytes.length === 0) return;
    this.hash.update(bytes);
    if (this.head.length < HEAD_BYTES) {
      this.head = Buffer.concat([this.head, bytes.subarray(0, HEAD_BYTES - this.head.length)]);
    }
    this.offset += bytes.length;
    this.entryCount += entries;
    const kept = bytes.length >= TAIL_BYTES ? bytes : Buffer.concat([this.tail, bytes]);
    this.tail = Buffer.from(kept.subarray(Math.max(0, kept.length - TAIL_BYTES)));
  }

  private async follow(handle: FileHandle, size: number, budget: number, signature: string): Promise<number> {
    this.startProgress(size);
    const length = Math.min(budget, size - this.readPosition);
    if (length <= 0) return 0;
    const bytes = await this.readAt(handle, this.readPosition, length);
    this.readPosition += bytes.length;
    this.pending = this.pending.length > 0 ? Buffer.concat([this.pending, bytes]) : bytes;
    const lastNewline = this.pending.lastIndexOf(NEWLINE);
    if (lastNewline < 0) {
      if (this.pending.length > this.limits.maxLineBytes) {
        this.stop(
          `line ${(this.reader?.linesRead ?? 0) + 1} is longer than ${this.limits.maxLineBytes} bytes`,
          true,
          signature,
        );
      }
      return bytes.length;
    }
    const complete = Buffer.from(this.pending.subarray(0, lastNewline + 1));
    this.pending = Buffer.from(this.pending.subarray(lastNewline + 1));
    if (!this.readLines(complete, signature, false)) return bytes.length;
    const header = this.reader?.header;
    if (header !== undefined && (this.converted.length > 0 || !this.started)) {
      const part: SessionFilePart = {
        header,
        entries: this.converted.map(({ entry }) => entry),
        fromEntry: this.entryCount,
        entryLines: this.converted.map(({ line }) => line),
      };
      await this.send({ part, bytes: complete });
    } else {
      this.commit(complete, 0);
    }
    this.progress(size, 'catching up');
    return bytes.length;
  }

  /** Sends a part; true when it is stored. A failure keeps it to send again (after a pause). */
  private async send(unsent: Unsent): Promise<boolean> {
    try {
      await this.options.sink.appendPart(unsent.part);
    } catch (error) {
      if (error instanceof WatchConflict) {
        this.stop(error.message, false, '');
        return false;
      }
      if (this.unsent === undefined) {
        this.options.log(
          `${this.path}: cannot store lines ${unsent.part.entryLines[0] ?? ''}… yet (${error instanceof Error ? error.message : String(error)}); trying again`,
        );
      }
      this.unsent = unsent;
      this.retryAt = this.now() + this.retryDelay;
      this.retryDelay = Math.min(this.retryDelay * 2, MAX_RETRY_MS);
      return false;
    }
    this.unsent = undefined;
    this.retryDelay = FIRST_RETRY_MS;
    this.started = true;
    this.commit(unsent.bytes, unsent.part.entries.length);
    return true;
  }
}
