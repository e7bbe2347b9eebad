// TEST FIXTURE. Catch-up subscriptions of the EventStoreDB protocol test server, to one stream or
// to `$all`: a confirmation, the history after the (exclusive) start, checkpoints for filtered
// `$all` subscriptions (every `window × multiplier` records considered, and once more before
// `caughtUp`, as the real server does), `caughtUp`, then live events as they are written. The
// subscription follows the log with one cursor, so nothing is skipped or sent twice between
// history and live; it never falls behind.
import { ReadReq, ReadResp } from '@eventstore/db-client/generated/streams_pb';
import type { EventLog, LogRecord } from './event-log';
import { checkpointResponse, eventResponse, recordFilter, send, type ReadCall } from './read-responses';
import { streamDeletedError } from './wire';

/** The window the real server uses when the client asks for `count` instead of `max`. */
const DEFAULT_SEARCH_WINDOW = 32;

/** Tracks live subscriptions so that the server can end them when it stops. */
export interface SubscriptionRegistry {
  add(stop: () => void): () => void;
}

/** The loop shared by both kinds of subscription: history from `startIndex`, then live. */
async function pump(
  log: EventLog,
  registry: SubscriptionRegistry,
  call: ReadCall,
  startIndex: number,
  visit: (record: LogRecord) => Promise<boolean>,
  beforeCaughtUp: () => Promise<boolean>,
): Promise<void> {
  let stopped = false;
  let wake: (() => void) | undefined;
  let pendingWrite = false;
  const signal = () => {
    pendingWrite = true;
    wake?.();
  };
  const stop = () => {
    stopped = true;
    wake?.();
  };
  const unregister = registry.add(() => {
    stop();
    if (!call.writableEnded) call.end();
  });
  const stopListening = log.onWrite(signal);
  call.on('cancelled', stop);
  try {
    const confirmation = new ReadResp.SubscriptionConfirmation();
    confirmation.setSubscriptionId(globalThis.crypto.randomUUID());
    const confirmed = new ReadResp();
    confirmed.setConfirmation(confirmation);
    if (!(await send(call, confirmed))) return;
    let index = startIndex;
    let caughtUp = false;
    while (!stopped) {
      const record = log.recordAt(index);
      if (record !== undefined) {
        index++;
        if (!(await visit(record))) return;
        continue;
      }
      if (!caughtUp) {
        caughtUp = true;
        if (!(await beforeCaughtUp())) return;
        const response = new ReadResp();
        response.setCaughtUp(new ReadResp.CaughtUp());
        if (!(await send(call, response))) return;
      }
      if (!pendingWrite) await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
      pendingWrite = false;
    }
  } finally {
    stopListening();
    unregister();
    call.off('cancelled', stop);
  }
}

export async function subscribeToStream(
  log: EventLog,
  registry: SubscriptionRegistry,
  call: ReadCall,
  streamOptions: ReadReq.Options.StreamOptions,
  structuredIds: boolean,
): Promise<void> {
  const identifier = streamOptions.getStreamIdentifier();
  const streamName =
    identifier === undefined ? '' : Buffer.from(identifier.getStreamName_asU8()).toString('utf8');
  if (log.isTombstoned(streamName)) {
    call.emit('error', streamDeletedError(streamName));
    return;
  }
  const Case = ReadReq.Options.StreamOptions.RevisionOptionCase;
  const afterRevision =
    streamOptions.getRevisionOptionCase() === Case.REVISION ? BigInt(streamOptions.getRevision()) : -1n;
  const startIndex = streamOptions.getRevisionOptionCase() === Case.END ? log.length : 0;
  await pump(
    log,
    registry,
    call,
    startIndex,
    async (record) => {
      if (record.streamName !== streamName) return true;
      if (record.eventType === '$streamDeleted') {
        call.emit('error', streamDeletedError(streamName));
        return false;
      }
      if (record.revision <= afterRevision) return true;
      return send(call, eventResponse(record, structuredIds, false));
    },
    () => Promise.resolve(true),
  );
}

export async function subscribeToAll(
  log: EventLog,
  registry: SubscriptionRegistry,
  call: ReadCall,
  options: ReadReq.Options,
  allOptions: ReadReq.Options.AllOptions,
  structuredIds: boolean,
): Promise<void> {
  const Case = ReadReq.Options.AllOptions.AllOptionCase;
  const position = allOptions.getPosition();
  const after = position === undefined ? undefined : BigInt(position.getCommitPosition());
  let startIndex = allOptions.getAllOptionCase() === Case.END ? log.length : 0;
  while (after !== undefined && startIndex < log.length && log.recordAt(startIndex)!.position <= after)
    startIndex++;
  const matches = recordFilter(options);
  const filter = options.hasFilter() ? options.getFilter() : undefined;
  const window = filter?.hasMax() ? filter.getMax() : DEFAULT_SEARCH_WINDOW;
  const checkpointInterval =
    filter === undefined ? 0 : Math.max(1, filter.getCheckpointintervalmultiplier() * window);
  let considered = 0;
  let lastConsidered: bigint | undefined;
  await pump(
    log,
    registry,
    call,
    startIndex,
    async (record) => {
      considered++;
      lastConsidered = record.position;
      if (matches(record) && !(await send(call, eventResponse(record, structuredIds, true)))) return false;
      if (checkpointInterval > 0 && considered % checkpointInterval === 0) {
        return send(call, checkpointResponse(record.position));
      }
      return true;
    },
    async () =>
      filter !== undefined && lastConsidered !== undefined
        ? send(call, checkpointResponse(lastConsidered))
        : true,
  );
}
