// An incremental parser of server-sent events (the text/event-stream format): fed chunks of text
// as they arrive, it returns the complete events and comments. Field rules as in the HTML
// standard: `event`, `data` (lines joined with \n), `id`; a blank line dispatches.

export interface ServerSentEvent {
  readonly id: string | undefined;
  /** `message` when the event names no type. */
  readonly event: string;
  readonly data: string;
}

export interface ParsedChunk {
  readonly events: readonly ServerSentEvent[];
  readonly comments: readonly string[];
}

export class ServerSentEventParser {
  private buffer = '';
  private eventName = '';
  private dataLines: string[] = [];
  private eventId: string | undefined;
  private hasData = false;

  push(chunk: string): ParsedChunk {
    this.buffer += chunk;
    const events: ServerSentEvent[] = [];
    const comments: string[] = [];
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.buffer);
      if (match === null) break;
      if (match[0] === '\r' && match.index === this.buffer.length - 1) break;
      const line = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      this.line(line, events, comments);
    }
    return { events, comments };
  }

  private line(line: string, events: ServerSentEvent[], comments: string[]): void {
    if (line === '') {
      if (this.hasData) {
        events.push({
          id: this.eventId,
          event: this.eventName || 'message',
          data: this.dataLines.join('\n'),
        });
      }
      this.eventName = '';
      this.dataLines = [];
      this.hasData = false;
      return;
    }
    if (line.startsWith(':')) {
      comments.push(line.slice(1).trimStart());
      return;
    }
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'event':
        this.eventName = value;
        break;
      case 'data':
        this.dataLines.push(value);
        this.hasData = true;
        break;
      case 'id':
        if (!value.includes('\0')) this.eventId = value;
        break;
      default:
        break;
    }
  }
}
