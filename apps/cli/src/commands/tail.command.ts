// `strata tail`: a subscriber of the engine's live event stream (GET /events, server-sent
// events) through @strata/client. Prints one JSON line per event on stdout; after a disconnect
// it reconnects with Last-Event-ID, so nothing is lost or printed twice. With --checkpoint it
// keeps the last id in a file and resumes from it when started again (each subscriber its own file).
// On stderr it says when it is connected (and from where it reads), when it has caught up with
// the log, and why it reconnects.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  EVENT_ID_PATTERN,
  StrataApiError,
  StrataClient,
  StrataClientError,
  StrataNetworkError,
  causeText,
  type ReconnectInfo,
} from '@strata/client';
import { CliError, type CommandImplementation, type CliIo } from '../cli-io';
import { parseCommandLine, positiveIntegerOption } from '../shared/options';

export const DEFAULT_ENGINE_URL = 'http://localhost:3000';

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

function engineUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new CliError(`--url must be an http(s) URL, not '${text}'`, 2);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new CliError(`--url must be http or https`, 2);
  return url;
}

/** The lines `strata tail` writes on stderr before it reconnects. */
function reportReconnect(io: CliIo, origin: string, info: ReconnectInfo): void {
  const { error } = info;
  if (error instanceof StrataApiError)
    io.stderr(`strata tail: the engine is not available (${error.status}): ${error.detail}\n`);
  else if (error instanceof StrataNetworkError && !info.connected)
    io.stderr(`strata tail: cannot reach ${origin}: ${causeText(error.cause)}\n`);
  const after = info.lastEventId !== undefined ? ` after event ${info.lastEventId}` : '';
  io.stderr(`strata tail: disconnected; reconnecting in ${info.delayMs} ms${after}\n`);
}

/** What `strata tail` says on stderr of the engine's comments: connected, caught up. */
function reportComment(io: CliIo, origin: string, from: string, text: string): void {
  if (text === 'connected') io.stderr(`strata tail: connected to ${origin}, reading ${from}\n`);
  else if (text.startsWith('caught up')) io.stderr('strata tail: caught up; waiting for new events\n');
}

/**
 * Follows the stream (the event subscription of @strata/client) until `signal` aborts or
 * `maxEvents` were printed. Returns the exit code. Refusals that retrying cannot fix (bad key,
 * unknown session, bad names) throw `CliError`.
 */
export async function tailEvents(options: TailOptions, io: CliIo, signal: AbortSignal): Promise<number> {
  const url = engineUrl(options.url);
  const lastEventId =
    options.lastEventId ??
    (options.checkpointFile !== undefined ? readCheckpoint(options.checkpointFile) : undefined);
  if (lastEventId !== undefined && !EVENT_ID_PATTERN.test(lastEventId)) {
    throw new CliError(`--last-event-id must be an event id such as 1234 or 1234.1, not '${lastEventId}'`, 2);
  }
  const client = new StrataClient({
    url: options.url,
    ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
  });
  const stream = client.events({
    ...(options.types !== undefined ? { types: options.types } : {}),
    ...(options.session !== undefined ? { session: options.session } : {}),
    ...(options.from !== undefined ? { from: options.from } : {}),
    ...(lastEventId !== undefined ? { lastEventId } : {}),
    ...(options.reconnectDelayMs !== undefined ? { reconnectDelayMs: options.reconnectDelayMs } : {}),
    onReconnect: (info) => reportReconnect(io, url.origin, info),
    onComment: (text) =>
      reportComment(
        io,
        url.origin,
        stream.lastEventId !== undefined
          ? `after event ${stream.lastEventId}`
          : options.from === 'start'
            ? 'from the start of the log'
            : 'new events only',
        text,
      ),
    signal,
  });
  let printed = 0;
  try {
    for await (const event of stream) {
      io.stdout(`${JSON.stringify(event)}\n`);
      printed += 1;
      const id = stream.lastEventId;
      if (options.checkpointFile !== undefined && id !== undefined)
        writeCheckpoint(options.checkpointFile, id);
      if (options.maxEvents !== undefined && printed >= options.maxEvents) return 0;
    }
  } catch (error) {
    if (error instanceof StrataApiError)
      throw new CliError(`the engine refused the stream (${error.status}): ${error.detail}`);
    if (error instanceof StrataClientError) throw new CliError(`the event stream broke: ${error.message}`);
    throw error;
  } finally {
    stream.close();
  }
  return 0;
}

export const tailCommand: CommandImplementation = {
  name: 'tail',
  usage: [
    'strata tail [--types <name,...>] [--session <id>] [--url <engine>] [--api-key <key>]',
    '            [--from start|end] [--last-event-id <id>] [--checkpoint <file>] [--max-events <n>] [--retry-ms <ms>]',
    '  --types: only these events, comma-separated: session_compact, session_tree, auto_compaction_start,',
    '    auto_compaction_end, entry_appended, … (see the README)',
    '  --session: only the events of this session',
    `  --url: the engine (default STRATA_URL, else ${DEFAULT_ENGINE_URL})`,
    '  --api-key: the key to read with (default STRATA_API_KEY)',
    '  --from: with no last event id, start at the beginning of the log (start) or with new events (end, the default)',
    '  --last-event-id: resume after this event id',
    '  --checkpoint: a file keeping the last id printed, read at start and written after each event',
    '  --max-events: stop after printing this many events',
    "  --retry-ms: the first pause before reconnecting (doubling while the engine stays away); the engine's by default",
    '  Says on stderr when it is connected, when it has caught up, and why it reconnects.',
    'examples:',
    '  strata tail --types session_compact,auto_compaction_end',
    '  strata tail --session 0190a8f0-7c1d-7000-8000-000000000001 --from start --checkpoint tail.checkpoint',
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
