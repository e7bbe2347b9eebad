// `strata watch`'s loop: finds every session file (*.jsonl) under the folders, recursively, and
// keeps finding new files and folders (node:fs watch with `recursive`, which Node 20 supports on
// Linux, plus a periodic rescan that also catches what an event missed, and polling when
// watching is not available), and steps the files' followers in turns. Each tick reads at most
// `tickBytes` in all and `stepBytes` per file, and at most `maxFiles` files are followed. The
// checkpoint is written at most every `checkpointMs` while something changed, and when stopping.
// With a flush time, a file is stepped again once it has been quiet that long after new lines.
import { watch, type FSWatcher } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { SessionFileFormat } from '@strata/session';
import type { FollowerLimits } from './follower-options';
import { SessionFileFollower } from './session-file-follower';
import { writeWatchCheckpoint, type FileCheckpoint } from './watch-checkpoint';
import type { WatchSink } from './watch-sink';

export interface WatcherLimits {
  readonly maxFiles: number;
  /** Directories read at most by one scan. */
  readonly maxDirectories: number;
  readonly tickBytes: number;
  readonly stepBytes: number;
  /** How often every file is looked at even without an event (more often without fs.watch). */
  readonly pollMs: number;
  readonly pollWithoutWatchMs: number;
  /** How often the folders are scanned again for new files. */
  readonly rescanMs: number;
  /** The wait after an event, so that a burst of writes is read at once. */
  readonly settleMs: number;
  readonly checkpointMs: number;
  readonly follower?: FollowerLimits;
}

export const DEFAULT_WATCHER_LIMITS: WatcherLimits = {
  maxFiles: 10_000,
  maxDirectories: 10_000,
  tickBytes: 16 * 1024 * 1024,
  stepBytes: 4 * 1024 * 1024,
  pollMs: 5_000,
  pollWithoutWatchMs: 500,
  rescanMs: 10_000,
  settleMs: 20,
  checkpointMs: 1_000,
};

export interface FolderWatcherOptions {
  readonly folders: readonly string[];
  readonly format: SessionFileFormat | 'auto';
  readonly sink: WatchSink;
  readonly log: (message: string) => void;
  /** The checkpoint file and what it held at start-up. */
  readonly checkpointPath?: string;
  readonly checkpoint?: ReadonlyMap<string, FileCheckpoint>;
  readonly limits?: Partial<WatcherLimits>;
  /** Quiet time after which a file's releasable held-back entries are stored (`--flush-after`). */
  readonly flushAfterMs?: number;
}

const SESSION_FILE = /\.jsonl$/;

export class SessionFolderWatcher {
  private readonly limits: WatcherLimits;
  private readonly folders: string[];
  private readonly followers = new Map<string, SessionFileFollower>();
  private readonly dirty = new Set<string>();
  private readonly watchers = new Map<string, FSWatcher>();
  private readonly recorded: Map<string, FileCheckpoint>;
  private readonly missingFolders = new Set<string>();
  private timers: NodeJS.Timeout[] = [];
  private tickTimer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopping = false;
  private changed = false;
  private checkpointTimer: NodeJS.Timeout | undefined;
  private flushTimer: NodeJS.Timeout | undefined;
  private flushAt = Number.POSITIVE_INFINITY;
  private lastCheckpointAt = 0;
  private tooMany = false;
  private watchUnavailable = false;

  constructor(private readonly options: FolderWatcherOptions) {
    this.limits = { ...DEFAULT_WATCHER_LIMITS, ...options.limits };
    this.folders = options.folders.map((folder) => resolve(folder));
    this.recorded = new Map(options.checkpoint);
  }

  /** Files followed (for the log and the tests). */
  get fileCount(): number {
    return this.followers.size;
  }

  async start(): Promise<void> {
    for (const folder of this.folders) this.watchFolder(folder);
    await this.scan();
    const pollMs = this.watchUnavailable ? this.limits.pollWithoutWatchMs : this.limits.pollMs;
    this.timers = [
      setInterval(() => {
        for (const path of this.followers.keys()) this.dirty.add(path);
        this.schedule(0);
      }, pollMs),
      setInterval(() => {
        for (const folder of this.folders) if (!this.watchers.has(folder)) this.watchFolder(folder);
        void this.scan().then(() => this.schedule(0));
      }, this.limits.rescanMs),
    ];
    this.schedule(0);
  }

  /** Stops watching, lets the step under way end, and writes the checkpoint. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const timer of this.timers) clearInterval(timer);
    if (this.tickTimer !== undefined) clearTimeout(this.tickTimer);
    if (this.flushTimer !== undefined) clearTimeout(this.flushTimer);
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
    await this.running;
    if (this.checkpointTimer !== undefined) clearTimeout(this.checkpointTimer);
    this.writeCheckpoint(true);
  }

  private watchFolder(folder: string): void {
    if (this.watchUnavailable) return;
    try {
      const watcher = watch(folder, { recursive: true }, (_event, name) => {
        if (name === null) {
          void this.scan().then(() => this.schedule(0));
          return;
        }
        const path = join(folder, name.toString());
        if (this.followers.has(path)) {
          this.dirty.add(path);
          this.schedule(this.limits.settleMs);
        } else if (SESSION_FILE.test(path)) {
          this.follow(path);
          this.schedule(this.limits.settleMs);
        } else {
          void this.scanFolder(path).then(() => this.schedule(this.limits.settleMs));
        }
      });
      watcher.on('error', () => {
        watcher.close();
        this.watchers.delete(folder);
      });
      this.watchers.set(folder, watcher);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return;
      this.watchUnavailable = true;
      this.options.log(
        `cannot watch ${folder} (${code ?? String(error)}); looking at the files every ${this.limits.pollWithoutWatchMs} ms instead`,
      );
    }
  }

  private async scan(): Promise<void> {
    for (const folder of this.folders) {
      const found = await this.scanFolder(folder);
      if (!found && !this.missingFolders.has(folder)) {
        this.missingFolders.add(folder);
        this.options.log(
          `${folder} does not exist yet; waiting for it to be created (looking again every ${this.limits.rescanMs} ms)`,
        );
      } else if (found && this.missingFolders.has(folder)) {
        this.missingFolders.delete(folder);
        this.options.log(`${folder} now exists; watching it`);
      }
    }
  }

  /** Follows the session files under `folder` (false when it is not a folder). */
  private async scanFolder(folder: string): Promise<boolean> {
    const queue = [folder];
    let directories = 0;
    while (queue.length > 0 && directories < this.limits.maxDirectories) {
      const directory = queue.shift()!;
      directories += 1;
      let entries;
      try {
        entries = await readdir(directory, { withFileTypes: true });
      } catch {
        if (directory === folder) return false;
        continue;
      }
      for (const entry of entries) {
        const path = join(directory, entry.name);
        if (entry.isDirectory()) queue.push(path);
        else if (entry.isFile() && SESSION_FILE.test(entry.name) && !this.followers.has(path))
          this.follow(path);
      }
    }
    return true;
  }

  private follow(path: string): void {
    if (this.stopping || this.followers.has(path)) return;
    if (this.followers.size >= this.limits.maxFiles) {
      if (!this.tooMany)
        this.options.log(
          `more than ${this.limits.maxFiles} session files: ${path} and later ones are not followed`,
        );
      this.tooMany = true;
      return;
    }
    const checkpoint = this.recorded.get(path);
    const follower = new SessionFileFollower(path, {
      format: this.options.format,
      sink: this.options.sink,
      log: this.options.log,
      ...(checkpoint !== undefined ? { checkpoint } : {}),
      ...(this.limits.follower !== undefined ? { limits: this.limits.follower } : {}),
      ...(this.options.flushAfterMs !== undefined ? { flushAfterMs: this.options.flushAfterMs } : {}),
    });
    this.followers.set(path, follower);
    this.dirty.add(path);
  }

  private schedule(delayMs: number): void {
    if (this.stopping) return;
    if (this.running !== undefined) {
      this.again = true;
      return;
    }
    if (this.tickTimer !== undefined) return;
    this.tickTimer = setTimeout(() => {
      this.tickTimer = undefined;
      this.running = this.tick().finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.schedule(0);
        }
      });
    }, delayMs);
  }

  private async tick(): Promise<void> {
    let budget = this.limits.tickBytes;
    const candidates = [...this.dirty];
    this.dirty.clear();
    for (const [path, follower] of this.followers)
      if (follower.busy && !candidates.includes(path)) candidates.push(path);
    for (const [index, path] of candidates.entries()) {
      if (this.stopping) break;
      if (budget <= 0) {
        for (const left of candidates.slice(index)) this.dirty.add(left);
        this.again = true;
        break;
      }
      const follower = this.followers.get(path);
      if (follower === undefined) continue;
      budget -= await follower.step(Math.min(this.limits.stepBytes, budget));
      this.note(path, follower);
      if (follower.busy) this.again = true;
    }
    this.armFlush();
    this.writeCheckpoint(false);
  }

  /** Wakes up when the first file waiting for its quiet time has had it, and steps those due. */
  private armFlush(): void {
    let first = Number.POSITIVE_INFINITY;
    for (const follower of this.followers.values()) first = Math.min(first, follower.flushDueAt ?? first);
    if (first === Number.POSITIVE_INFINITY || (this.flushTimer !== undefined && this.flushAt <= first))
      return;
    if (this.flushTimer !== undefined) clearTimeout(this.flushTimer);
    this.flushAt = first;
    this.flushTimer = setTimeout(
      () => {
        this.flushTimer = undefined;
        this.flushAt = Number.POSITIVE_INFINITY;
        const now = Date.now();
        for (const [path, follower] of this.followers) {
          const due = follower.flushDueAt;
          if (due !== undefined && due <= now) this.dirty.add(path);
        }
        this.schedule(0);
      },
      Math.max(0, first - Date.now()),
    );
  }

  /** Records a follower's checkpoint when it moved. */
  private note(path: string, follower: SessionFileFollower): void {
    const checkpoint = follower.checkpoint();
    const recorded = this.recorded.get(path);
    if (
      checkpoint === undefined ||
      (recorded?.offset === checkpoint.offset &&
        recorded.entryCount === checkpoint.entryCount &&
        recorded.ino === checkpoint.ino)
    )
      return;
    this.recorded.set(path, checkpoint);
    this.changed = true;
  }

  private writeCheckpoint(force: boolean): void {
    const path = this.options.checkpointPath;
    if (path === undefined || !this.changed) return;
    const wait = this.lastCheckpointAt + this.limits.checkpointMs - Date.now();
    if (!force && wait > 0) {
      this.checkpointTimer ??= setTimeout(() => {
        this.checkpointTimer = undefined;
        this.writeCheckpoint(false);
      }, wait);
      return;
    }
    writeWatchCheckpoint(path, this.recorded);
    this.changed = false;
    this.lastCheckpointAt = Date.now();
  }
}
