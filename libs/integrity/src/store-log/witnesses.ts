// Witnesses outside the store (decision 0018): every checkpoint the engine signs is handed, as
// the JSON line `strata anchors export` writes, to an append-only file (`STRATA_ANCHOR_WITNESS_FILE`)
// and to an HTTPS endpoint (`STRATA_ANCHOR_WITNESS_URL`, POSTed as JSON Lines). Neither ever holds
// up a write: the file is appended in the background, and the endpoint is tried again with a
// growing pause (at most a minute) while the checkpoints to send wait in a bounded queue (the
// oldest dropped past it, each drop reported: a witness that misses a checkpoint still checks the
// log through the next one, which chains to it). `strata verify --anchors <file>` reads a witness file.
import { appendFile } from 'node:fs/promises';
import { logEntryLine, type CheckpointLogEntry } from './log-entry';

export interface Witness {
  /** Takes the checkpoint entries just signed (never throws, never waits). */
  handOver(entries: readonly CheckpointLogEntry[]): void;
  /** Waits until what was handed over is written or sent (or `deadline` passes). */
  drain(deadline?: number): Promise<void>;
}

export interface WitnessReports {
  readonly onError?: (witness: string, error: unknown) => void;
}

export class FileWitness implements Witness {
  private writing: Promise<void> = Promise.resolve();

  constructor(
    readonly path: string,
    private readonly reports: WitnessReports = {},
  ) {}

  handOver(entries: readonly CheckpointLogEntry[]): void {
    const text = entries.map(logEntryLine).join('');
    this.writing = this.writing.then(() =>
      appendFile(this.path, text, { flag: 'a' }).catch((error: unknown) =>
        this.reports.onError?.(this.path, error),
      ),
    );
  }

  async drain(): Promise<void> {
    await this.writing;
  }
}

/** The most checkpoint batches waiting for an endpoint. */
export const WITNESS_QUEUE_LIMIT = 1_000;
const FIRST_PAUSE_MS = 500;
const LONGEST_PAUSE_MS = 60_000;
const REQUEST_TIMEOUT_MS = 10_000;

export class UrlWitness implements Witness {
  private readonly queue: string[] = [];
  private sending: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private stopped = false;
  /** Batches dropped because the queue was full, and batches delivered. */
  dropped = 0;
  delivered = 0;

  constructor(
    readonly url: string,
    private readonly reports: WitnessReports = {},
    private readonly limit = WITNESS_QUEUE_LIMIT,
  ) {}

  handOver(entries: readonly CheckpointLogEntry[]): void {
    if (this.stopped || entries.length === 0) return;
    this.queue.push(entries.map(logEntryLine).join(''));
    while (this.queue.length > this.limit) {
      this.queue.shift();
      this.dropped += 1;
      this.reports.onError?.(
        this.url,
        new Error('the witness queue is full: the oldest checkpoint was dropped'),
      );
    }
    this.sending ??= this.sendAll().finally(() => {
      this.sending = undefined;
    });
  }

  /** Waits until the queue is empty, or until `deadline` (epoch ms); then stops retrying. */
  async drain(deadline = Date.now() + 5_000): Promise<void> {
    this.wake?.();
    while (this.sending !== undefined && Date.now() < deadline) {
      await Promise.race([this.sending, new Promise((resolve) => setTimeout(resolve, 50).unref())]);
    }
    this.stopped = true;
    this.wake?.();
  }

  private async sendAll(): Promise<void> {
    let pause = FIRST_PAUSE_MS;
    while (this.queue.length > 0 && !this.stopped) {
      const body = this.queue[0]!;
      try {
        const response = await fetch(this.url, {
          method: 'POST',
          headers: { 'Content-Type': 'application/jsonl' },
          body,
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        await response.arrayBuffer();
        if (!response.ok) throw new Error(`the witness answered ${response.status}`);
        this.queue.shift();
        this.delivered += 1;
        pause = FIRST_PAUSE_MS;
      } catch (error) {
        this.reports.onError?.(this.url, error);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, pause);
          timer.unref();
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.wake = undefined;
        pause = Math.min(pause * 2, LONGEST_PAUSE_MS);
      }
    }
  }
}
