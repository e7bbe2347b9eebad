// Sending a followed file's parts to the store. A part the store refuses as a conflict is
// reported to the follower (which stops the file); any other failure is temporary: the part is
// kept and sent again after a pause that doubles up to a bound, and the log says so once.
import { WatchConflict, type SessionFilePart, type WatchSink } from './watch-sink';

const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 10_000;

/** A part not stored yet, with the bytes of the file it was read from. */
export interface UnsentPart {
  readonly part: SessionFilePart;
  readonly bytes: Buffer;
}

export class PartSender {
  private unsent: UnsentPart | undefined;
  private retryAt = 0;
  private retryDelay = FIRST_RETRY_MS;

  constructor(
    private readonly sink: WatchSink,
    private readonly log: (message: string) => void,
    private readonly path: string,
    private readonly now: () => number,
  ) {}

  /** The part kept to send again, if one is. */
  get waiting(): UnsentPart | undefined {
    return this.unsent;
  }

  /** Whether the pause before sending the kept part again is over. */
  get due(): boolean {
    return this.now() >= this.retryAt;
  }

  /** Forgets the kept part (the file stopped, or is read again from its start). */
  drop(): void {
    this.unsent = undefined;
  }

  /** Sends a part: `stored`, `later` (kept to send again), or the store's conflict. */
  async send(unsent: UnsentPart): Promise<'stored' | 'later' | WatchConflict> {
    try {
      await this.sink.appendPart(unsent.part);
    } catch (error) {
      if (error instanceof WatchConflict) return error;
      if (this.unsent === undefined) {
        this.log(
          `${this.path}: cannot store lines ${unsent.part.entryLines[0] ?? ''}… yet (${error instanceof Error ? error.message : String(error)}); trying again`,
        );
      }
      this.unsent = unsent;
      this.retryAt = this.now() + this.retryDelay;
      this.retryDelay = Math.min(this.retryDelay * 2, MAX_RETRY_MS);
      return 'later';
    }
    this.unsent = undefined;
    this.retryDelay = FIRST_RETRY_MS;
    return 'stored';
  }
}
