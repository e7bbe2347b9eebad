// The HTTP adapter of the watch sink: each part is `POST /sessions/import?fromEntry=N` to an
// engine, as a pi v3 file part (the header line, then the part's entries), so the engine applies
// the sync rule, the tenant of the key and the bound on one session. A 409 import_conflict is a
// WatchConflict; other failures are temporary (the part is sent again).
import { serializeSessionFile } from '@strata/session';
import {
  conflictReason,
  WATCH_ACTOR,
  WatchConflict,
  type PartStored,
  type SessionFilePart,
  type WatchSink,
} from './watch-sink';

const REQUEST_TIMEOUT_MS = 60_000;

interface ImportAnswer {
  readonly appended?: unknown;
}

interface ConflictProblem {
  readonly reason?: unknown;
  readonly detail?: unknown;
  readonly firstDifference?: { entryIndex?: unknown; entryId?: unknown; storedEntryId?: unknown };
}

export class HttpSink implements WatchSink {
  readonly description: string;

  constructor(
    private readonly url: string,
    private readonly apiKey: string | undefined,
  ) {
    this.description = `the engine at ${url}`;
  }

  async appendPart(part: SessionFilePart): Promise<PartStored> {
    const headers: Record<string, string> = {
      'content-type': 'application/x-ndjson',
      'x-strata-actor': WATCH_ACTOR,
    };
    if (this.apiKey !== undefined) headers['authorization'] = `Bearer ${this.apiKey}`;
    const response = await fetch(new URL(`/sessions/import?fromEntry=${part.fromEntry}`, this.url), {
      method: 'POST',
      headers,
      body: serializeSessionFile(part.header, part.entries),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (response.ok) {
      const appended = (body as ImportAnswer | undefined)?.appended;
      return { appended: typeof appended === 'number' ? appended : 0 };
    }
    const problem = (body ?? {}) as ConflictProblem;
    const detail = typeof problem.detail === 'string' ? problem.detail : text.slice(0, 500);
    if (response.status === 409 && problem.reason === 'import_conflict') {
      const difference = problem.firstDifference;
      throw new WatchConflict(
        conflictReason(
          part,
          typeof difference?.entryIndex === 'number' ? difference.entryIndex : undefined,
          typeof difference?.entryId === 'string' ? difference.entryId : undefined,
          typeof difference?.storedEntryId === 'string' ? difference.storedEntryId : undefined,
          detail,
        ),
      );
    }
    if ([400, 401, 403, 413].includes(response.status)) {
      throw new WatchConflict(`the engine refused it (${response.status}): ${detail}`);
    }
    throw new Error(`the engine answered ${response.status}: ${detail}`);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
