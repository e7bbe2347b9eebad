// Following one session file as it is written: read what was appended since the last step (at
// most a budget of bytes), give its complete lines to the format's line reader (a partial last
// line waits for its newline), and store the entries they make in one append of a part of the
// file (its entries from the count already stored on). The file's first `offset` bytes are
// hashed as they are read; a file that got shorter, is another file (device and inode) or no
// longer ends what was read the same way is checked again from its start against that hash,
// and when it differs the file is no longer followed, and the log says why, instead of guessing
// what it now means. Resuming from a checkpoint is the same check: the file's first `offset`
// bytes are read again through a new line reader (which so gets the state it had) and must hash
// as recorded. With a flush time, a file quiet for that long gives up what its reader holds
// back and can release (quiet-flush.ts). The part read is read-prefix.ts, the lines
// followed-lines.ts, the sending part-sender.ts; this file holds the follower's states and steps.
import { open, stat, type FileHandle } from 'node:fs/promises';
import { SessionFileError } from '@strata/session';
import { FollowedLines, type ConvertedEntry } from './followed-lines';
import {
  DEFAULT_FOLLOWER_LIMITS,
  mebibytes,
  signatureOf,
  type FollowerLimits,
  type FollowerOptions,
  type FollowerState,
} from './follower-options';
import { PartSender, type UnsentPart } from './part-sender';
import { QuietFlush } from './quiet-flush';
import { ReadPrefix } from './read-prefix';
import { ReadProgress } from './read-progress';
import type { FileCheckpoint } from './watch-checkpoint';
import { WatchConflict, type SessionFilePart } from './watch-sink';

const NEWLINE = 0x0a;
const NO_BYTES = Buffer.alloc(0);

export class SessionFileFollower {
  private state: FollowerState;
  private lines: FollowedLines;
  private prefix = new ReadPrefix();
  private readPosition = 0;
  private pending: Buffer = Buffer.alloc(0);
  private birthtimeMs = 0;
  private dev = 0;
  private ino = 0;
  private started = false;
  private readonly sender: PartSender;
  private announced = false;
  private readonly readProgress: ReadProgress;
  private lastSize = 0;
  /** Set when a stopped file changed and is checked again, until it is followed (said once in the log). */
  private resumed = false;
  /** Entries of the lines read last, with the line each came from. */
  private converted: ConvertedEntry[] = [];
  private readonly limits: FollowerLimits;
  private readonly now: () => number;
  private readonly quiet: QuietFlush;

  constructor(
    readonly path: string,
    private readonly options: FollowerOptions,
  ) {
    this.limits = options.limits ?? DEFAULT_FOLLOWER_LIMITS;
    this.now = options.now ?? Date.now;
    this.lines = new FollowedLines(options.format);
    this.sender = new PartSender(options.sink, options.log, path, this.now);
    this.readProgress = new ReadProgress(this.limits.progressBytes);
    this.quiet = new QuietFlush(options.flushAfterMs, this.now);
    this.state =
      options.checkpoint !== undefined && options.checkpoint.offset > 0
        ? { kind: 'verifying', target: options.checkpoint }
        : { kind: 'following' };
  }

  /** Whether the follower has more to do right away (unread bytes, or a part to send again). */
  get busy(): boolean {
    if (this.state.kind === 'stopped') return false;
    if (this.sender.waiting !== undefined) return this.sender.due;
    return this.lastSize > this.readPosition;
  }

  get stopped(): boolean {
    return this.state.kind === 'stopped';
  }

  /** When the file will have been quiet for the flush time, while lines wait for it. */
  get flushDueAt(): number | undefined {
    return this.state.kind === 'following' && this.sender.waiting === undefined
      ? this.quiet.dueAt
      : undefined;
  }

  /** What to record of the file: its last state known to be stored. */
  checkpoint(): FileCheckpoint | undefined {
    if (this.state.kind === 'verifying') return this.state.target;
    if (this.state.kind === 'stopped') return this.state.lastGood;
    return this.current();
  }

  private current(): FileCheckpoint | undefined {
    if (this.prefix.offset === 0) return undefined;
    const header = this.lines.header;
    const format = this.lines.readFormat;
    return {
      offset: this.prefix.offset,
      entryCount: this.prefix.entryCount,
      sha256: this.prefix.sha256,
      dev: this.dev,
      ino: this.ino,
      ...(format !== undefined ? { format } : {}),
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
    const unsent = this.sender.waiting;
    if (unsent !== undefined) {
      if (!this.sender.due) return 0;
      if (!(await this.send(unsent))) return 0;
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
    if (this.state.kind === 'following' && this.prefix.offset > 0) {
      const moved =
        stats.dev !== this.dev || stats.ino !== this.ino || stats.birthtimeMs !== this.birthtimeMs;
      if (moved || stats.size < this.prefix.offset || !(await this.prefix.endsAsRead(handle))) {
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
      this.options.log(
        `following ${this.path} from byte ${this.prefix.offset} (${this.prefix.entryCount} entries stored)`,
      );
    }
    return this.follow(handle, stats.size, budget, signature);
  }

  /** Starts again from byte 0, to check the file against `target` (or to read it anew without one). */
  private restart(target: FileCheckpoint | undefined): void {
    this.lines = new FollowedLines(this.options.format);
    this.prefix = new ReadPrefix();
    this.readPosition = 0;
    this.pending = Buffer.alloc(0);
    this.sender.drop();
    this.quiet.reset();
    this.started = false;
    this.state = target !== undefined ? { kind: 'verifying', target } : { kind: 'following' };
  }

  private stop(reason: string, recheck: boolean, signature: string): void {
    const previous = this.state.kind === 'stopped' ? this.state.reason : undefined;
    const lastGood = this.checkpoint();
    this.state = { kind: 'stopped', reason, recheck, signature, lastGood };
    this.sender.drop();
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

  /** Reads up to `length` bytes more after what was read, onto the pending bytes; returns them. */
  private async readMore(handle: FileHandle, length: number): Promise<Buffer> {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, this.readPosition);
    const bytes = bytesRead === length ? buffer : buffer.subarray(0, bytesRead);
    this.readPosition += bytes.length;
    this.pending = this.pending.length > 0 ? Buffer.concat([this.pending, bytes]) : bytes;
    return bytes;
  }

  private progress(total: number, doing: string): void {
    if (!this.readProgress.due(this.readPosition)) return;
    this.options.log(
      `${this.path}: ${doing}, ${mebibytes(this.readPosition)} of ${mebibytes(total)} read (${this.prefix.entryCount} entries)`,
    );
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
    this.readProgress.start(this.readPosition, target.offset);
    const length = Math.min(budget, target.offset - this.readPosition);
    const bytes = await this.readMore(handle, length);
    const lastNewline = this.pending.lastIndexOf(NEWLINE);
    if (lastNewline >= 0 || this.readPosition === target.offset) {
      const complete = this.pending.subarray(0, lastNewline + 1);
      this.pending = this.pending.subarray(lastNewline + 1);
      if (!this.readLines(complete, signature, true)) return bytes.length;
      this.prefix.add(complete, this.converted.length);
    }
    this.progress(target.offset, 'checking it against the checkpoint');
    if (this.readPosition < target.offset) return bytes.length;
    // entries released while the file was quiet count in the checkpoint: release them again
    const released =
      this.pending.length === 0 && this.prefix.entryCount < target.entryCount ? this.release(signature) : [];
    if (released === undefined) return bytes.length;
    const stored = Math.min(released.length, target.entryCount - this.prefix.entryCount);
    this.prefix.add(NO_BYTES, stored);
    const same =
      this.pending.length === 0 &&
      this.prefix.sha256 === target.sha256 &&
      this.prefix.entryCount === target.entryCount;
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
    this.started = this.prefix.entryCount > 0;
    if (this.resumed) {
      this.resumed = false;
      this.options.log(
        `${this.path}: followed again: it starts with the ${target.offset} bytes already stored; storing what comes after them`,
      );
    }
    if (released.length > stored)
      await this.send({ part: this.partOf(released.slice(stored)), bytes: NO_BYTES });
    return bytes.length;
  }

  /** What the reader releases of the entries it held back; undefined when that stopped the file. */
  private release(signature: string): ConvertedEntry[] | undefined {
    try {
      return this.lines.release();
    } catch (error) {
      if (!(error instanceof SessionFileError)) throw error;
      this.stop(`line ${error.line}: ${error.reason} (${error.code})`, true, signature);
      return undefined;
    }
  }

  /** Stores what the reader can release once the file has been quiet for the flush time. */
  private async flushQuiet(signature: string): Promise<void> {
    if (!this.quiet.take()) return;
    const released = this.release(signature);
    if (released !== undefined && released.length > 0 && this.lines.header !== undefined) {
      await this.send({ part: this.partOf(released), bytes: NO_BYTES });
    }
  }

  /** The part of the file made of these entries, after those stored. */
  private partOf(converted: readonly ConvertedEntry[]): SessionFilePart {
    const header = this.lines.header;
    if (header === undefined) throw new Error('a part is made once the lines named the session');
    return {
      header,
      entries: converted.map(({ entry }) => entry),
      fromEntry: this.prefix.entryCount,
      entryLines: converted.map(({ line }) => line),
    };
  }

  /** Gives complete lines to the reader (made on the first lines); false when the file stopped or the format is not known yet. */
  private readLines(complete: Buffer, signature: string, verifying: boolean): boolean {
    this.converted = [];
    if (complete.length === 0) return true;
    try {
      const converted = this.lines.convert(complete, verifying);
      if (converted === undefined) {
        this.pending = Buffer.concat([complete, this.pending]);
        return false;
      }
      this.converted = converted;
      return true;
    } catch (error) {
      if (!(error instanceof SessionFileError)) throw error;
      this.stop(`line ${error.line}: ${error.reason} (${error.code})`, true, signature);
      return false;
    }
  }

  private async follow(handle: FileHandle, size: number, budget: number, signature: string): Promise<number> {
    this.readProgress.start(this.readPosition, size);
    const length = Math.min(budget, size - this.readPosition);
    if (length <= 0) {
      await this.flushQuiet(signature);
      return 0;
    }
    const bytes = await this.readMore(handle, length);
    const lastNewline = this.pending.lastIndexOf(NEWLINE);
    this.quiet.read(lastNewline >= 0);
    if (lastNewline < 0) {
      if (this.pending.length > this.limits.maxLineBytes) {
        this.stop(
          `line ${this.lines.linesRead + 1} is longer than ${this.limits.maxLineBytes} bytes`,
          true,
          signature,
        );
      }
      return bytes.length;
    }
    const complete = Buffer.from(this.pending.subarray(0, lastNewline + 1));
    this.pending = Buffer.from(this.pending.subarray(lastNewline + 1));
    if (!this.readLines(complete, signature, false)) return bytes.length;
    if (this.lines.header !== undefined && (this.converted.length > 0 || !this.started)) {
      await this.send({ part: this.partOf(this.converted), bytes: complete });
    } else {
      this.prefix.add(complete, 0);
    }
    this.progress(size, 'catching up');
    return bytes.length;
  }

  /** Sends a part; true when it is stored (a conflict stops the file). */
  private async send(unsent: UnsentPart): Promise<boolean> {
    const outcome = await this.sender.send(unsent);
    if (outcome instanceof WatchConflict) {
      this.stop(outcome.message, false, '');
      return false;
    }
    if (outcome === 'later') return false;
    this.started = true;
    this.prefix.add(unsent.bytes, unsent.part.entries.length);
    return true;
  }
}
