// How SQLite subscriptions learn of new events without busy-waiting:
// - appends made in this process wake every store open on the same file at once;
// - appends made by OTHER processes are seen by a modest poll of max(global_position), which
//   runs only while at least one live subscription is waiting (default every 200 ms).
// File watching was not chosen: WAL writes do not reliably produce change events on every
// platform, while the poll is one indexed read per interval.
import { AppendNotifier } from '../subscription/append-notifier';

const notifiersByDatabase = new Map<string, Set<AppendNotifier>>();

export class SqliteAppendWatch {
  readonly notifier = new AppendNotifier();
  private timer: NodeJS.Timeout | undefined;
  /** Only ever set together with a notification, so a stale value costs one spurious wake, never a miss. */
  private lastSeenHead: bigint | null = null;
  private readonly stopListening: () => void;

  constructor(
    private readonly databaseKey: string,
    private readonly readHead: () => bigint | null,
    private readonly pollIntervalMs: number,
  ) {
    const notifiers = notifiersByDatabase.get(databaseKey) ?? new Set<AppendNotifier>();
    notifiers.add(this.notifier);
    notifiersByDatabase.set(databaseKey, notifiers);
    this.stopListening = this.notifier.onWaitingChange((waiting) =>
      waiting ? this.startPolling() : this.stopPolling(),
    );
  }

  /** Called after a local commit: wakes subscriptions of every store on this database. */
  announceLocalAppend(head: bigint): void {
    this.lastSeenHead = head;
    for (const notifier of notifiersByDatabase.get(this.databaseKey) ?? []) notifier.notify();
  }

  close(): void {
    this.stopPolling();
    this.stopListening();
    const notifiers = notifiersByDatabase.get(this.databaseKey);
    notifiers?.delete(this.notifier);
    if (notifiers?.size === 0) notifiersByDatabase.delete(this.databaseKey);
  }

  private startPolling(): void {
    if (this.timer !== undefined || this.databaseKey === ':memory:') return;
    this.timer = setInterval(() => this.poll(), this.pollIntervalMs);
  }

  private stopPolling(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  private poll(): void {
    const head = this.readHead();
    if (head === this.lastSeenHead) return;
    this.lastSeenHead = head;
    this.notifier.notify();
  }
}
