// A whole session file made ready for a new stream away from the event loop that answers
// requests: decided and sealed exactly as `writeSessionImport` does (the same decider, derived
// ids, audit metadata and hash chain), against an empty in-memory store, then encoded as the
// JSON text the store keeps. Only a new stream can be prepared so: its first revision and
// previous hash are known in advance. The caller writes the texts with the expectation
// `no_stream`; when the stream appeared meanwhile, that append fails and nothing was written.
import { type EncodedEvent, InMemoryEventStore, toJsonText } from '@strata/event-store';
import {
  writeSessionImport,
  type PreparedSessionImport,
  type SessionImportReport,
  type WriteSessionImportOptions,
} from './session-import';

/** What a new session's import writes: its events as stored text, and its report once written. */
export interface EncodedSessionImport {
  readonly report: SessionImportReport;
  readonly events: readonly EncodedEvent[];
}

/** The write options an encoded import keeps (no custom appender, check or progress callback). */
export type EncodeSessionImportOptions = Pick<
  WriteSessionImportOptions,
  'actor' | 'metadata' | 'tenant' | 'now'
>;

export async function encodeNewSessionImport(
  prepared: PreparedSessionImport,
  options: EncodeSessionImportOptions = {},
): Promise<EncodedSessionImport> {
  if (prepared.fromEntry !== undefined) {
    throw new RangeError('a part of a file (fromEntry) extends a stored session; it cannot be encoded alone');
  }
  const scratch = new InMemoryEventStore();
  try {
    const report = await writeSessionImport(scratch, prepared, options);
    const events: EncodedEvent[] = [];
    for await (const recorded of scratch.readStream(report.streamId)) {
      events.push({
        id: recorded.id,
        type: recorded.type,
        data: toJsonText(recorded.data, `data of event ${recorded.id}`),
        metadata: toJsonText(recorded.metadata, `metadata of event ${recorded.id}`),
        createdAt: recorded.createdAt,
      });
    }
    return { report, events };
  } finally {
    await scratch.close();
  }
}
