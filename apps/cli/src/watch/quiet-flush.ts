// When a followed file's held-back entries are asked for (`strata watch --flush-after <ms>`):
// once no byte was added to the file for the quiet time after complete lines were read. What
// is then stored is only what the format's reader can release (entries no later line can
// change), so asking once per quiet spell is enough; new lines make it due again.

export class QuietFlush {
  private lastBytesAt = 0;
  private wanted = false;

  constructor(
    private readonly afterMs: number | undefined,
    private readonly now: () => number,
  ) {}

  /** Bytes were read; `lines` when complete lines among them went to the reader. */
  read(lines: boolean): void {
    if (this.afterMs === undefined) return;
    this.lastBytesAt = this.now();
    if (lines) this.wanted = true;
  }

  /** When the file will have been quiet long enough, if lines read since the last flush wait for it. */
  get dueAt(): number | undefined {
    return this.afterMs !== undefined && this.wanted ? this.lastBytesAt + this.afterMs : undefined;
  }

  /** Whether the flush is due now; if so, it is not due again before more lines are read. */
  take(): boolean {
    const due = this.dueAt;
    if (due === undefined || this.now() < due) return false;
    this.wanted = false;
    return true;
  }

  /** The file is read again from its start. */
  reset(): void {
    this.wanted = false;
  }
}
