// The HTTP adapter of the watch sink, on @strata/client: each part is `POST /sessions/import?
// fromEntry=N` to an engine, as a part of a pi v3 file (the header line, then the part's
// entries), so the engine applies the sync rule, the tenant and name of the key and the bound on
// one session. A 409 import_conflict, and any refusal that sending again cannot change, is a
// WatchConflict; other failures are temporary (the part is sent again later).
import { StrataApiError, StrataClient } from '@strata/client';
import { serializeSessionFile } from '@strata/session';
import {
  conflictReason,
  WatchConflict,
  type PartStored,
  type SessionFilePart,
  type WatchSink,
} from './watch-sink';

/** Refusals that sending the same part again cannot change. */
const FINAL_STATUSES = new Set([400, 401, 403, 404, 409, 413]);

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

export class HttpSink implements WatchSink {
  readonly description: string;
  private readonly client: StrataClient;

  constructor(url: string, apiKey: string | undefined) {
    this.description = `the engine at ${url}`;
    this.client = new StrataClient({ url, ...(apiKey !== undefined ? { apiKey } : {}), timeoutMs: 60_000 });
  }

  async appendPart(part: SessionFilePart): Promise<PartStored> {
    try {
      const report = await this.client.importSession(serializeSessionFile(part.header, part.entries), {
        fromEntry: part.fromEntry,
      });
      return { appended: report.appended };
    } catch (error) {
      if (!(error instanceof StrataApiError) || !FINAL_STATUSES.has(error.status)) throw error;
      if (error.reason !== 'import_conflict') {
        throw new WatchConflict(`the engine refused it (${error.status} ${error.code}): ${error.detail}`);
      }
      const difference = error.problem['firstDifference'];
      const text = (key: string) => {
        const value = field(difference, key);
        return typeof value === 'string' ? value : undefined;
      };
      const entryIndex = field(difference, 'entryIndex');
      throw new WatchConflict(
        conflictReason(
          part,
          typeof entryIndex === 'number' ? entryIndex : undefined,
          text('entryId'),
          text('storedEntryId'),
          error.detail,
        ),
      );
    }
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
