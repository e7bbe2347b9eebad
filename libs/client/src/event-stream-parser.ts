// An incremental parser of server-sent events (WHATWG HTML, "server-sent events"): fields `id`,
// `event`, `data` and `retry`, comments kept apart, any of CRLF, LF or CR ending a line. Bounded:
// a line or an event longer than `maxEventLength` characters is a protocol error, so a hostile
// server cannot make the client hold an unbounded line in memory.
import { StrataProtocolError } from './errors';

export interface EventFrame {
  readonly id: string | undefined;
  readonly event: string | undefined;
  readonly data: string;
}

export interface ParserSink {
  onEvent(frame: EventFrame): void;
  onRetry?(milliseconds: number): void;
  onComment?(text: string): void;
}

export class EventStreamParser {
  /** The parts of the line not yet ended (kept as parts: no copying of a long line per chunk). */
  private pending: string[] = [];
  private pendingLength = 0;
  /** The previous chunk ended with CR: a LF first in the next one ends nothing. */
  private afterCarriageReturn = false;
  private dataLines: string[] = [];
  private dataLength = 0;
  private id: string | undefined;
  private event: string | undefined;

  constructor(
    private readonly sink: ParserSink,
    private readonly maxEventLength: number,
  ) {}

  push(chunk: string): void {
    let start = 0;
    if (this.afterCarriageReturn && chunk.startsWith('\n')) start = 1;
    this.afterCarriageReturn = false;
    for (let index = start; index < chunk.length; index += 1) {
      const character = chunk.charCodeAt(index);
      if (character !== 10 && character !== 13) continue;
      this.pending.push(chunk.slice(start, index));
      const line = this.pending.join('');
      this.pending = [];
      this.pendingLength = 0;
      if (character === 13) {
        if (index + 1 < chunk.length) {
          if (chunk.charCodeAt(index + 1) === 10) index += 1;
        } else {
          this.afterCarriageReturn = true;
        }
      }
      start = index + 1;
      this.line(line);
    }
    if (start < chunk.length) {
      const rest = chunk.slice(start);
      this.pendingLength += rest.length;
      if (this.pendingLength + this.dataLength > this.maxEventLength) this.tooLong();
      this.pending.push(rest);
    }
  }

  private tooLong(): never {
    throw new StrataProtocolError(
      `the event stream sent an event longer than ${this.maxEventLength} characters`,
    );
  }

  private line(line: string): void {
    if (line === '') {
      if (this.dataLines.length > 0)
        this.sink.onEvent({ id: this.id, event: this.event, data: this.dataLines.join('\n') });
      this.dataLines = [];
      this.dataLength = 0;
      this.event = undefined;
      // The id is the last event id of the stream: it stays until another sets it (WHATWG).
      return;
    }
    if (line.startsWith(':')) {
      this.sink.onComment?.(line.slice(1).replace(/^ /, ''));
      return;
    }
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    switch (field) {
      case 'data':
        this.dataLength += value.length + 1;
        if (this.dataLength > this.maxEventLength) this.tooLong();
        this.dataLines.push(value);
        break;
      case 'id':
        if (!value.includes('\0')) this.id = value;
        break;
      case 'event':
        this.event = value;
        break;
      case 'retry':
        if (/^\d{1,9}$/.test(value)) this.sink.onRetry?.(Number(value));
        break;
      default:
        break;
    }
  }
}
