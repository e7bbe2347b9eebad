// A small server-sent-events client for the tests: connects over node:http, parses frames as
// they arrive, and lets a test wait for events or comments without sleeping.
import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import { isEngineUrl, recordApiResponse } from './openapi-conformance/conformance-recorder';

export interface ReceivedEvent {
  readonly id: string | undefined;
  readonly event: string | undefined;
  readonly data: string;
  /** `data` parsed as JSON. */
  readonly json: { readonly name: string; readonly id: string; readonly sessionId: string } & Record<
    string,
    unknown
  >;
}

export interface EventStreamConnection {
  readonly status: number;
  readonly contentType: string;
  readonly events: ReceivedEvent[];
  readonly comments: string[];
  /** The body when the response was not a stream (an error). */
  readonly errorBody: Promise<string>;
  waitForEvents(count: number, timeoutMs?: number): Promise<ReceivedEvent[]>;
  waitForComment(predicate: (comment: string) => boolean, timeoutMs?: number): Promise<void>;
  /** Resolves when the server ends the stream. */
  readonly ended: Promise<void>;
  close(): void;
}

export function openEventStream(
  url: string,
  headers: Readonly<Record<string, string>> = {},
): Promise<EventStreamConnection> {
  return new Promise((resolve, reject) => {
    const events: ReceivedEvent[] = [];
    const comments: string[] = [];
    const listeners = new Set<() => void>();
    const notify = (): void => listeners.forEach((listener) => listener());
    const waitUntil = (done: () => boolean, timeoutMs: number, what: string): Promise<void> =>
      new Promise((resolveWait, rejectWait) => {
        if (done()) return resolveWait();
        const timer = setTimeout(() => {
          listeners.delete(check);
          rejectWait(
            new Error(
              `timed out waiting for ${what}; got ${events.length} events: ${events.map((event) => event.event).join(', ')}`,
            ),
          );
        }, timeoutMs);
        function check(): void {
          if (!done()) return;
          clearTimeout(timer);
          listeners.delete(check);
          resolveWait();
        }
        listeners.add(check);
      });
    const onResponse = async (response: IncomingMessage): Promise<void> => {
      const contentType = String(response.headers['content-type'] ?? '');
      let buffer = '';
      let errorText = '';
      let endedResolve = (): void => undefined;
      const ended = new Promise<void>((resolveEnded) => {
        endedResolve = resolveEnded;
      });
      const errorBody = new Promise<string>((resolveBody) => {
        response.on('end', () => resolveBody(errorText));
      });
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        if (!contentType.startsWith('text/event-stream')) {
          errorText += chunk;
          return;
        }
        buffer += chunk;
        let boundary = buffer.indexOf('\n\n');
        while (boundary >= 0) {
          const frame = buffer.slice(0, boundary);
          buffer = buffer.slice(boundary + 2);
          const fields: Record<string, string> = {};
          const dataLines: string[] = [];
          for (const line of frame.split('\n')) {
            if (line.startsWith(':')) comments.push(line.slice(1).trim());
            const colon = line.indexOf(':');
            if (colon <= 0) continue;
            const name = line.slice(0, colon);
            const value = line.slice(colon + 1).replace(/^ /, '');
            if (name === 'data') dataLines.push(value);
            else fields[name] = value;
          }
          if (dataLines.length > 0) {
            const data = dataLines.join('\n');
            events.push({
              id: fields['id'],
              event: fields['event'],
              data,
              json: JSON.parse(data) as ReceivedEvent['json'],
            });
          }
          boundary = buffer.indexOf('\n\n');
        }
        notify();
      });
      response.on('end', () => endedResolve());
      response.on('close', () => endedResolve());
      const streamed = contentType.startsWith('text/event-stream');
      if (isEngineUrl(url)) {
        const { pathname, search } = new URL(url);
        recordApiResponse({
          method: 'GET',
          target: `${pathname}${search}`,
          status: response.statusCode ?? 0,
          contentType,
          // A stream is checked for its status and media type; an error for its body too.
          body: streamed ? undefined : await errorBody,
        });
      }
      resolve({
        status: response.statusCode ?? 0,
        contentType,
        events,
        comments,
        errorBody,
        ended,
        async waitForEvents(count, timeoutMs = 10_000) {
          await waitUntil(() => events.length >= count, timeoutMs, `${count} events`);
          return events.slice(0, count);
        },
        waitForComment(predicate, timeoutMs = 10_000) {
          return waitUntil(() => comments.some(predicate), timeoutMs, 'a comment');
        },
        close() {
          client.destroy();
          response.destroy();
        },
      });
    };
    const client: ClientRequest = request(
      url,
      { headers: { accept: 'text/event-stream', ...headers } },
      (response) => void onResponse(response),
    );
    client.on('error', reject);
    client.end();
  });
}
