// A typed client of the engine's HTTP API (the OpenAPI document at /openapi.json, the README's
// "HTTP API"). Each method is one endpoint; answers are the plain types of ./api-types and ./attempt-types. Errors are
// typed (./errors). Reads are retried on transient failures; writes only when sending them twice
// does no harm: a start with a chosen session id, an append or label with an idempotency key, a
// compaction or navigation with an attempt id, an import (the same file again is `unchanged`), an
// abort.
import type {
  AppendOptions,
  AppendResult,
  ContextQuery,
  EntriesQuery,
  ImportReport,
  ListSessionsQuery,
  SessionContext,
  SessionDetail,
  SessionEntries,
  SessionEntry,
  SessionEntryView,
  SessionLease,
  SessionList,
  SessionTree,
  StartSessionRequest,
  StartSessionResult,
} from './api-types';
import type {
  AbortRequest,
  AbortResult,
  AttemptList,
  AttemptsQuery,
  CompactRequest,
  CompactionResult,
  NavigateOptions,
  NavigationResult,
  SessionVerification,
  SetLabelResult,
  TenantVerification,
} from './attempt-types';
import { StrataProtocolError } from './errors';
import { EventSubscription, type EventStreamOptions } from './event-subscription';
import { Transport, type Answer, type CallOptions, type Exchange, type TransportOptions } from './transport';

export type StrataClientOptions = TransportOptions;

/** The media type a session file is sent as (`POST /sessions/import`). */
export const SESSION_FILE_MEDIA_TYPE = 'application/x-ndjson';

type QueryValue = string | number | boolean | undefined;

function queryString(query: Readonly<Record<string, QueryValue>>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) search.set(name, String(value));
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

function segment(id: string): string {
  return encodeURIComponent(id);
}

function parsed<T>(answer: Answer, exchange: Exchange): T {
  try {
    return JSON.parse(answer.text) as T;
  } catch {
    throw new StrataProtocolError(
      `${exchange.method} ${exchange.path} answered ${answer.status} with a body that is not JSON`,
    );
  }
}

export class StrataClient {
  private readonly transport: Transport;

  constructor(readonly options: StrataClientOptions) {
    this.transport = new Transport(options);
  }

  private async json<T>(exchange: Exchange, call?: CallOptions): Promise<T> {
    return parsed<T>(await this.transport.send(exchange, call), exchange);
  }

  private get<T>(path: string, call?: CallOptions): Promise<T> {
    return this.json<T>({ method: 'GET', path, retryable: true }, call);
  }

  /** `POST /sessions`: starts a session (with `sessionId`, starting it again answers the first answer). */
  startSession(request: StartSessionRequest, call?: CallOptions): Promise<StartSessionResult> {
    return this.json(
      { method: 'POST', path: '/sessions', json: request, retryable: request.sessionId !== undefined },
      call,
    );
  }

  /** `POST /sessions/{id}/entries`: appends complete entries as one atomic batch. */
  append(
    sessionId: string,
    entries: readonly SessionEntry[],
    options: AppendOptions = {},
    call?: CallOptions,
  ): Promise<AppendResult> {
    return this.json(
      {
        method: 'POST',
        path: `/sessions/${segment(sessionId)}/entries`,
        json: { entries, ...options },
        retryable: options.idempotencyKey !== undefined,
      },
      call,
    );
  }

  /**
   * `POST /sessions/import`: imports a pi session file (JSON Lines, v1 to v3) in one atomic append;
   * the same file again answers `unchanged`, a file that grew `appended` (the rest appended).
   * `lenient` skips bad lines instead of refusing the file; `fromEntry` sends a part of a pi v3
   * file (its header line, then its entries after the first `fromEntry`), as `strata watch` does.
   */
  importSession(
    file: string | Uint8Array,
    options: { readonly lenient?: boolean; readonly fromEntry?: number } = {},
    call?: CallOptions,
  ): Promise<ImportReport> {
    const query = queryString({
      lenient: options.lenient === true ? 'true' : undefined,
      fromEntry: options.fromEntry,
    });
    return this.json(
      {
        method: 'POST',
        path: `/sessions/import${query}`,
        text: { body: file, contentType: SESSION_FILE_MEDIA_TYPE },
        retryable: true,
      },
      call,
    );
  }

  /** `GET /sessions/{id}`: header, sizes, token usage, labels, leaf. */
  getSession(sessionId: string, call?: CallOptions): Promise<SessionDetail> {
    return this.get(`/sessions/${segment(sessionId)}`, call);
  }

  /** `GET /sessions`: the tenant's sessions, most recently active first. */
  listSessions(query: ListSessionsQuery = {}, call?: CallOptions): Promise<SessionList> {
    return this.get(`/sessions${queryString({ ...query })}`, call);
  }

  /** `GET /sessions/{id}/context`: the context sent to the model (`waitForCompaction` waits for one under way). */
  context(sessionId: string, query: ContextQuery = {}, call?: CallOptions): Promise<SessionContext> {
    const timeoutMs =
      query.waitForCompaction !== undefined
        ? Math.max(call?.timeoutMs ?? this.options.timeoutMs ?? 30_000, query.waitForCompaction + 10_000)
        : call?.timeoutMs;
    return this.get(`/sessions/${segment(sessionId)}/context${queryString({ ...query })}`, {
      ...call,
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    });
  }

  /** `GET /sessions/{id}/tree`: flat nodes with their children and labels. */
  tree(sessionId: string, call?: CallOptions): Promise<SessionTree> {
    return this.get(`/sessions/${segment(sessionId)}/tree`, call);
  }

  /** `GET /sessions/{id}/entries`: a page of entries in append order, or of the path to `leaf`. */
  entries(sessionId: string, query: EntriesQuery = {}, call?: CallOptions): Promise<SessionEntries> {
    return this.get(`/sessions/${segment(sessionId)}/entries${queryString({ ...query })}`, call);
  }

  /** `GET /sessions/{id}/entries/{entryId}`: one entry, its label and children, whether it is on the current path. */
  getEntry(sessionId: string, entryId: string, call?: CallOptions): Promise<SessionEntryView> {
    return this.get(`/sessions/${segment(sessionId)}/entries/${segment(entryId)}`, call);
  }

  /** `POST /sessions/{id}/compact`: runs one compaction attempt and answers its outcome. */
  compact(sessionId: string, request: CompactRequest = {}, call?: CallOptions): Promise<CompactionResult> {
    return this.json(
      {
        method: 'POST',
        path: `/sessions/${segment(sessionId)}/compact`,
        json: request,
        retryable: request.attemptId !== undefined,
      },
      call,
    );
  }

  /** `POST /sessions/{id}/navigate`: moves the leaf, optionally summarising the branch left. */
  navigate(
    sessionId: string,
    targetId: string,
    options: NavigateOptions = {},
    call?: CallOptions,
  ): Promise<NavigationResult> {
    return this.json(
      {
        method: 'POST',
        path: `/sessions/${segment(sessionId)}/navigate`,
        json: { targetId, ...options },
        retryable: options.attemptId !== undefined,
      },
      call,
    );
  }

  /** `POST /sessions/{id}/abort`: aborts running compaction or branch-summary attempts. */
  abort(sessionId: string, request: AbortRequest = {}, call?: CallOptions): Promise<AbortResult> {
    return this.json(
      { method: 'POST', path: `/sessions/${segment(sessionId)}/abort`, json: request, retryable: true },
      call,
    );
  }

  /** `POST /sessions/{id}/labels`: labels an entry (null or empty clears the label). */
  setLabel(
    sessionId: string,
    targetId: string,
    label: string | null,
    options: { readonly idempotencyKey?: string; readonly leaseToken?: string } = {},
    call?: CallOptions,
  ): Promise<SetLabelResult> {
    return this.json(
      {
        method: 'POST',
        path: `/sessions/${segment(sessionId)}/labels`,
        json: { targetId, label, ...options },
        retryable: options.idempotencyKey !== undefined,
      },
      call,
    );
  }

  /**
   * `POST /sessions/{id}/lease`: takes the session's writer lease for `ttlMs` (1,000 to 600,000);
   * 409 `lease_held` (with `holder`, `expiresAt`) while another writer's lease is in force.
   */
  takeLease(sessionId: string, holder: string, ttlMs: number, call?: CallOptions): Promise<SessionLease> {
    return this.json(
      {
        method: 'POST',
        path: `/sessions/${segment(sessionId)}/lease`,
        json: { holder, ttlMs },
        retryable: false,
      },
      call,
    );
  }

  /** `POST /sessions/{id}/lease` with the token: renews the lease in force for `ttlMs` from now. */
  renewLease(sessionId: string, token: string, ttlMs: number, call?: CallOptions): Promise<SessionLease> {
    return this.json(
      {
        method: 'POST',
        path: `/sessions/${segment(sessionId)}/lease`,
        json: { token, ttlMs },
        retryable: true,
      },
      call,
    );
  }

  /** `DELETE /sessions/{id}/lease?token=`: releases the lease (again is harmless). */
  async releaseLease(sessionId: string, token: string, call?: CallOptions): Promise<void> {
    await this.transport.send(
      {
        method: 'DELETE',
        path: `/sessions/${segment(sessionId)}/lease${queryString({ token })}`,
        retryable: true,
      },
      call,
    );
  }

  /** `GET /sessions/{id}/export`: the session as a pi v3 file (JSON Lines). */
  async exportSession(sessionId: string, call?: CallOptions): Promise<string> {
    const answer = await this.transport.send(
      {
        method: 'GET',
        path: `/sessions/${segment(sessionId)}/export`,
        retryable: true,
        accept: SESSION_FILE_MEDIA_TYPE,
      },
      call,
    );
    return answer.text;
  }

  /** `GET /sessions/{id}/verify`: checks the session's hash chain. */
  verify(sessionId: string, call?: CallOptions): Promise<SessionVerification> {
    return this.get(`/sessions/${segment(sessionId)}/verify`, call);
  }

  /** `GET /verify`: checks the hash chains of every session of the tenant. */
  verifyAll(call?: CallOptions): Promise<TenantVerification> {
    return this.get('/verify', call);
  }

  /** `GET /sessions/{id}/attempts`, or `GET /attempts` without a session: the audit of attempts. */
  attempts(
    sessionId: string | undefined,
    query: AttemptsQuery = {},
    call?: CallOptions,
  ): Promise<AttemptList> {
    const path = sessionId === undefined ? '/attempts' : `/sessions/${segment(sessionId)}/attempts`;
    return this.get(`${path}${queryString({ ...query })}`, call);
  }

  /** `GET /events`: the live event stream, resumable (see `EventSubscription`). */
  events(options: EventStreamOptions = {}): EventSubscription {
    return new EventSubscription(this.options, options);
  }
}
