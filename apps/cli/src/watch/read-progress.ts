// When a follower reports how far it has read a large file: only when at least `every` bytes
// were still to be read as it started, and then once each `every` bytes.

export class ReadProgress {
  private nextAt = Number.POSITIVE_INFINITY;

  constructor(private readonly every: number) {}

  /** Starts reporting if at least `every` bytes lie between `position` and `total` (once). */
  start(position: number, total: number): void {
    if (this.nextAt !== Number.POSITIVE_INFINITY || total - position < this.every) return;
    this.nextAt = position + this.every;
  }

  /** Whether a report is due at `position`; if so, the next one is due `every` bytes on. */
  due(position: number): boolean {
    if (position < this.nextAt) return false;
    this.nextAt = position + this.every;
    return true;
  }
}
