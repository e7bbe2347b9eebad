// `strata tail`: a subscriber of the engine's live event stream (GET /events, server-sent
// events). Prints one JSON line per event on stdout; after a disconnect it reconnects with
// Last-Event-ID, so nothing is lost or printed twice. With --checkpoint it keeps the last id in
// a file and resumes from it when started again (each subscriber its own file).
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { CliError, type CliCommand, type CliIo } from '../cli-io';
import { parseCommandLine, positiveIntegerOption } from '../shared/options';

export const DEFAULT_ENGINE_URL = 'http://localhost:3000';
const MAX_RECONNECT_DELAY_MS = 30_000;
const EVENT_ID_PATTERN = /^\d{1,30}(?:\.\d{1,3})?$/;

export interface TailOptions {
  readonly url: string;
  readonly apiKey?: string;
  readonly types?: string;
  readonly session?: string;
  /** Without a known last id: from the beginning of the log, or live (default). */
  readonly from?: 'start' | 'end';
  /** Resume after this id. */
  readonly lastEventId?: string;
  /** A file holding the last id printed (read at start, written after each event). */
  readonly checkpointFile?: string;
  /** Stop after printing this many events. */
  readonly maxEvents?: number;
  /** The reconnection delay (doubling while the engine stays away); the server's `retry:` by default. */
  readonly reconnectDelayMs?: number;
}

interface SseEvent {
  readonly id: string | undefined;
  readonly data: string;
}

/** Incremental parser of an event stream (fields `id`, `data`, `retry`; comments ignored). */
class EventStreamParser {
  private buffer = '';
  private dataLines: string[] = [];
  private id: string | undefined;

  constructor(
    private readonly onEvent: (event: SseEvent) => void,
    private readonly onRetry: (milliseconds: number) => void,
  ) {}

  push(chunk: string): void {
    this.buffer += chunk;
    let newline = this.buffer.search(/\r\n|\n|\r/);
    while (newline >= 0) {
      const line = this.buffer.slice(0, newline);
      const width = this.buffer.startsWith('\r\n', newline) ? 2 : 1;
      this.buffer = this.buffer.slice(newline + width);
      this.line(line);
      newline = this.buffer.search(/\r\n|\n|\r/);
    }
  }

  private line(line: string): void {
    if (line === '') {
      if (this.dataLines.length > 0) this.onEvent({ id: this.id, data: this.dataLines.join('\n') });
      this.dataLines = [];
      this.id = undefined;
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'data') this.dataLines.push(value);
    else if (field === 'id') this.id = value;
    else if (field === 'retry' && /^\d+$/.test(value)) this.onRetry(Number(value));
  }
}

function readCheckpoint(file: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch {
    return undefined;
  }
  if (text === '') return undefined;
  if (!EVENT_ID_PATTERN.test(text))
    throw new CliError(`checkpoint ${file} holds no event id ('${text.slice(0, 40)}')`);
  return text;
}

function writeCheckpoint(file: string, id: string): void {
  const temporary = `${file}.tmp`;
  writeFileSync(temporary, `${id}\n`);
  renameSync(temporary, file);
}

function streamUrl(options: TailOptions): URL {
  let url: URL;
  try {
    url = new URL('/events', options.url);
  } catch {
    throw new CliError(`--url must be an http(s) URL, not '${options.url}'`, 2);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new CliError(`--url must be http or https`, 2);
  if (options.types !== undefined) url.searchParams.set('types', options.types);
  if (options.session !== undefined) url.searchParams.set('session', options.session);
  if (options.from !== undefined) url.searchParams.set('from', options.from);
  return url;
}

type Connection = { readonly response: IncomingMessage; readonly close: () => void };

function connect(url: URL, headers: Record<string, string>, signal: AbortSignal): Promise<Connection> {
  return new Promise((resolvePromise, reject) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const client = send(url, { headers, signal }, (response) =>
      resolvePromise({ response, close: () => client.destroy() }),
    );
    client.on('error', reject);
    client.end();
  });
}

function readBody(response: IncomingMessage): Promise<string> {
  return new Promise((resolvePromise) => {
    let text = '';
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => (text += chunk));
    response.on('end', () => resolvePromise(text));
    response.on('error', () => resolvePromise(text));
  });
}

function problemDetail(text: string): string {
  try {
    const parsed: unknown = JSON.parse(text);
    if (
      typeof parsed === 'object' &&
      parsed !== null &&
      'detail' in parsed &&
      typeof parsed.detail === 'string'
    ) {
      return parsed.detail;
    }
  } catch {
    // not a problem document
  }
  return text.slice(0, 200);
}

function sleep(milliseconds: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolvePromise) => {
    const timer = setTimeout(done, milliseconds);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolvePromise();
    }
    signal.addEventListener('abort', done);
  });
}

/**
 * Follows the stream until `signal` aborts or `maxEvents` were printed. Returns the exit code.
 * Refusals that retrying cannot fix (bad key, unknown session, bad names) throw `CliError`.
 */
export async function tailEvents(options: TailOptions, io: CliIo, signal: AbortSignal): Promise<number> {
  const url = streamUrl(options);
  let lastEventId =
    options.lastEventId ??
    (options.checkpointFile !== undefined ? readCheckpoint(options.checkpointFile) : undefined);
  if (lastEventId !== undefined && !EVENT_ID_PATTERN.test(lastEventId)) {
    throw new CliError(`--last-event-id must be an event id such as 1234 or 1234.1, not '${lastEventId}'`, 2);
  }
  let printed = 0;
  let delay = options.reconnectDelayMs ?? 2_000;
  let failures = 0;
  while (!signal.aborted) {
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (options.apiKey !== undefined) headers['authorization'] = `Bearer ${options.apiKey}`;
    if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
    let connection: Connection | undefined;
    try {
      connection = await connect(url, headers, signal);
    } catch (error) {
      if (signal.aborted) break;
      io.stderr(
        `strata tail: cannot reach ${url.origin}: ${error instanceof Error ? error.message : String(error)}\n`,
      );
    }
    if (connection !== undefined) {
      const { response } = connection;
      const status = response.statusCode ?? 0;
      if (status !== 200) {
        const detail = problemDetail(await readBody(response));
        if (status !== 503 && status < 500)
          throw new CliError(`the engine refused the stream (${status}): ${detail}`);
        io.stderr(`strata tail: the engine is not available (${status}): ${detail}\n`);
      } else {
        failures = 0;
        const done = await new Promise<boolean>((resolvePromise) => {
          const parser = new EventStreamParser(
            (event) => {
              if (options.maxEvents !== undefined && printed >= options.maxEvents) return;
              io.stdout(`${event.data}\n`);
              printed += 1;
              if (event.id !== undefined && EVENT_ID_PATTERN.test(event.id)) {
                lastEventId = event.id;
                if (options.checkpointFile !== undefined) writeCheckpoint(options.checkpointFile, event.id);
              }
              if (options.maxEvents !== undefined && printed >= options.maxEvents) {
                connection?.close();
                resolvePromise(true);
              }
            },
            (milliseconds) => {
              if (options.reconnectDelayMs === undefined) delay = milliseconds;
            },
          );
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => parser.push(chunk));
          response.on('end', () => resolvePromise(false));
          response.on('close', () => resolvePromise(false));
          response.on('error', () => resolvePromise(false));
        });
        if (done) return 0;
      }
    }
    if (signal.aborted) break;
    failures += 1;
    const wait = Math.min(delay * 2 ** Math.max(0, failures - 1), MAX_RECONNECT_DELAY_MS);
    io.stderr(
      `strata tail: disconnected; reconnecting in ${wait} ms${lastEventId !== undefined ? ` after event ${lastEventId}` : ''}\n`,
    );
    await sleep(wait, signal);
  }
  return 0;
}

export const tailCommand: CliCommand = {
  name: 'tail',
  summary: "print the engine's live session events, one JSON line each (resumes after disconnects)",
  usage: [
    'strata tail [--types <name,...>] [--session <id>] [--url <engine>] [--api-key <key>]',
    '            [--from start|end] [--last-event-id <id>] [--checkpoint <file>] [--max-events <n>] [--retry-ms <ms>]',
    `  --url defaults to STRATA_URL, else ${DEFAULT_ENGINE_URL}; --api-key to STRATA_API_KEY`,
    '  names: session_compact, session_tree, auto_compaction_start, auto_compaction_end, entry_appended, … (see the README)',
  ].join('\n'),
  async run(argv, io) {
    const { values, positionals } = parseCommandLine(argv, {
      types: { type: 'string' },
      session: { type: 'string' },
      url: { type: 'string' },
      'api-key': { type: 'string' },
      from: { type: 'string' },
      'last-event-id': { type: 'string' },
      checkpoint: { type: 'string' },
      'max-events': { type: 'string' },
      'retry-ms': { type: 'string' },
    });
    if (positionals.length > 0) throw new CliError('tail takes no positional arguments', 2);
    if (values.from !== undefined && values.from !== 'start' && values.from !== 'end') {
      throw new CliError(`--from must be start or end, not '${values.from}'`, 2);
    }
    const apiKey = values['api-key'] ?? io.env['STRATA_API_KEY'];
    const maxEvents = positiveIntegerOption('max-events', values['max-events']);
    const reconnectDelayMs = positiveIntegerOption('retry-ms', values['retry-ms']);
    const controller = new AbortController();
    const stop = (): void => controller.abort();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    try {
      return await tailEvents(
        {
          url: values.url ?? io.env['STRATA_URL'] ?? DEFAULT_ENGINE_URL,
          ...(apiKey !== undefined && apiKey !== '' ? { apiKey } : {}),
          ...(values.types !== undefined ? { types: values.types } : {}),
          ...(values.session !== undefined ? { session: values.session } : {}),
          ...(values.from !== undefined ? { from: values.from } : {}),
          ...(values['last-event-id'] !== undefined ? { lastEventId: values['last-event-id'] } : {}),
          ...(values.checkpoint !== undefined ? { checkpointFile: resolve(io.cwd, values.checkpoint) } : {}),
          ...(maxEvents !== undefined ? { maxEvents } : {}),
          ...(reconnectDelayMs !== undefined ? { reconnectDelayMs } : {}),
        },
        io,
        controller.signal,
      );
    } finally {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    }
  },
};
