// The position a processor may store as its checkpoint while events are handled concurrently:
// the position just before the first event given to it that is not finished yet (every event
// at or below it is finished or was passed over). Tickets are opened in position order.

export interface WatermarkTicket {
  readonly position: bigint;
  /** The watermark while this ticket is the first one unfinished. */
  readonly before: bigint | null;
  done: boolean;
}

export class Watermark {
  private pending: WatermarkTicket[] = [];
  private first = 0;
  private seen: bigint | null;

  /** `start`: everything at or below it is already done (null: nothing yet). */
  constructor(start: bigint | null) {
    this.seen = start;
  }

  /** Every event at or below it is finished or was passed over. */
  get position(): bigint | null {
    return this.first < this.pending.length ? this.pending[this.first]!.before : this.seen;
  }

  /** The last position given to the processor, finished or not. */
  get lastSeen(): bigint | null {
    return this.seen;
  }

  /** Tickets not finished yet. */
  get outstanding(): number {
    let count = 0;
    for (let index = this.first; index < this.pending.length; index += 1) {
      if (!this.pending[index]!.done) count += 1;
    }
    return count;
  }

  /** An event the processor has to handle. */
  open(position: bigint): WatermarkTicket {
    this.assertAfter(position);
    const ticket: WatermarkTicket = { position, before: this.seen, done: false };
    this.pending.push(ticket);
    this.seen = position;
    return ticket;
  }

  /** An event (or a caught-up position) the processor has nothing to do for. */
  pass(position: bigint): void {
    if (this.seen !== null && position <= this.seen) return;
    this.seen = position;
  }

  finish(ticket: WatermarkTicket): void {
    ticket.done = true;
    while (this.first < this.pending.length && this.pending[this.first]!.done) this.first += 1;
    if (this.first === this.pending.length) {
      this.pending = [];
      this.first = 0;
    } else if (this.first > 1_024 && this.first * 2 > this.pending.length) {
      this.pending = this.pending.slice(this.first);
      this.first = 0;
    }
  }

  private assertAfter(position: bigint): void {
    if (this.seen !== null && position <= this.seen) {
      throw new RangeError(`position ${position} is not after ${this.seen}`);
    }
  }
}
