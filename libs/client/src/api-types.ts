// The engine's answers as plain TypeScript types, written by hand from the response schemas of the
// OpenAPI document (apps/engine/src/api/sessions/session-responses.schemas.ts, served at
// /openapi.json). Revisions and global positions are decimal strings. Entries and messages keep
// their known fields and allow others: the client passes them through as the engine sent them.
// test/http/client-types.e2e-spec.ts checks at compile time that the engine's answers fit them.
// This file: sessions, entries, imports, lists, contexts, trees; attempt-types.ts: compactions,
// navigations, labels, verification and the audit of attempts; event-types.ts: the live events.

/** One pi session entry (v3): `type`, `id`, `parentId`, `timestamp`, and the fields of its type. */
export interface SessionEntry {
  readonly type: string;
  readonly id: string;
  readonly parentId: string | null;
  readonly timestamp: string;
  readonly [field: string]: unknown;
}

/** The header line of a pi v3 file. */
export interface SessionHeader {
  readonly type: 'session';
  readonly id: string;
  readonly timestamp: string;
  readonly cwd: string;
  readonly version?: number;
  readonly title?: string;
  readonly parentSession?: string;
  readonly [field: string]: unknown;
}

export interface Usage {
  readonly input: number;
  readonly output: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
  readonly totalTokens?: number;
  readonly [field: string]: unknown;
}

export interface StartSessionRequest {
  /** Chosen by the caller for an idempotent start (a retried start answers the first answer). */
  readonly sessionId?: string;
  readonly cwd: string;
  readonly title?: string;
  readonly parentSession?: string;
}

export interface StartSessionResult {
  readonly sessionId: string;
  readonly header: SessionHeader;
  readonly revision: string | null;
  readonly alreadyStarted: boolean;
}

export interface AppendOptions {
  /** The stream's last revision as the writer saw it; another one answers 409. */
  readonly expectedRevision?: string;
  /** The leaf as the writer saw it (null: empty session); another one answers 409. */
  readonly expectedLeafId?: string | null;
  /** The same key writes the batch once; with it, the client may resend the append safely. */
  readonly idempotencyKey?: string;
  /** The token of the session's writer lease; required while a lease is in force. */
  readonly leaseToken?: string;
}

export interface AppendResult {
  readonly sessionId: string;
  readonly entryIds: readonly string[];
  readonly leafId: string | null;
  readonly revision: string | null;
  readonly alreadyAppended: boolean;
  /**
   * The automatic compaction this append asked for, and how it has ended so far (usually still
   * open: `outcome: null`): read the context with `waitForCompaction` next.
   */
  readonly compaction:
    (CompactionEnding & { readonly attemptId: string; readonly trigger: 'threshold' | 'overflow' }) | null;
}

/** How a compaction attempt ended, as an append's answer and a context read's wait tell it. */
export interface CompactionEnding {
  /** Null while the attempt is open (or not started yet). */
  readonly outcome: 'completed' | 'skipped' | 'cancelled' | 'failed' | null;
  /** Why a skipped or cancelled attempt did not compact (`nothing_to_summarize`, `stale`, …); a failed one's error code. */
  readonly reason: string | null;
  /** True when an overflow recovery completed: send the failed request again on the compacted context. */
  readonly willRetry: boolean;
  /** The compaction entry a completed attempt appended (`getEntry` reads it). */
  readonly entryId: string | null;
}

/** One compaction attempt of a context read's `compactionWait`. */
export interface CompactionReport extends CompactionEnding {
  readonly attemptId: string;
  readonly trigger: 'threshold' | 'overflow' | 'manual';
}

/** What the context differs in from the entries on the path (so that the model gets a valid request). */
export interface ContextRepairs {
  /** Tool call ids answered with a synthetic error result (its `entryIds` item is null). */
  readonly synthesizedResults: readonly string[];
  /** Entry ids of tool results left out: no open call of the answer before them matches. */
  readonly droppedOrphanResults: readonly string[];
  /** Entry ids of answers left out because they failed before the model said anything. */
  readonly omittedFailedAnswers: readonly string[];
  /** The latest compaction's first kept entry is not on the path before it: nothing was kept. */
  readonly missingFirstKeptEntry: { readonly compactionId: string; readonly firstKeptEntryId: string } | null;
}

export interface FileProblem {
  readonly line: number;
  readonly code: string;
  readonly reason: string;
}

export interface ImportReport {
  readonly sessionId: string;
  /** `imported`, `appended` (a grown file: the rest appended) or `unchanged`. */
  readonly outcome: string;
  readonly entryCount: number;
  /** Entries appended by this import. */
  readonly appended: number;
  readonly eventsWritten: number;
  readonly revision: string;
  readonly sourceVersion: number;
  readonly migrated: boolean;
  readonly skipped: readonly FileProblem[];
  readonly repaired: readonly FileProblem[];
  readonly [field: string]: unknown;
}

export interface CatalogUsage {
  readonly input: number;
  readonly output: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
  readonly totalTokens: number;
  readonly cost: number;
}

export interface SessionSummary {
  readonly sessionId: string;
  readonly tenant: string;
  readonly title: string | null;
  readonly headerTitle: string | null;
  readonly sessionName: string | null;
  readonly cwd: string;
  readonly createdAt: string;
  readonly parentSession: string | null;
  readonly entryCount: number;
  readonly messageCount: number;
  readonly usage: CatalogUsage;
  readonly compactionCount: number;
  readonly branchSummaryCount: number;
  readonly leafId: string | null;
  readonly lastActivityAt: string;
  readonly lastEntryAt: string | null;
  readonly position: string;
}

export interface SessionList {
  readonly items: readonly SessionSummary[];
  readonly total: number;
  readonly nextCursor: string | null;
}

export interface SessionDetail extends SessionSummary {
  readonly header: SessionHeader;
  readonly labels: Readonly<Record<string, string>>;
  readonly revision: string;
}

/** Where a search (`GET /sessions?q=`) found a session: null when only its title or directory matched. */
export interface SearchMatch {
  readonly entryId: string;
  readonly excerpt: string;
  readonly matchingEntries: number;
}

export interface SearchResults {
  readonly items: readonly (SessionSummary & { readonly match: SearchMatch | null })[];
  readonly total: number;
  readonly nextCursor: null;
  readonly nextOffset: number | null;
  /** A bound of the search was reached: more sessions may match. */
  readonly truncated: boolean;
}

/** One raw event of a session as the store holds it (`GET /sessions/{id}/events`). */
export interface RawEvent {
  readonly revision: string;
  readonly position: string;
  readonly type: string;
  readonly id: string;
  readonly actor: string | null;
  readonly onBehalfOf: string | null;
  readonly time: string;
  readonly hash: string | null;
  readonly previousHash: string | null;
}

export interface RawEventsPage {
  readonly sessionId: string;
  readonly events: readonly RawEvent[];
  /** Pass as `after` for the next page; null on the last. */
  readonly next: string | null;
}

export interface PageQuery {
  readonly limit?: number;
  readonly offset?: number;
  /** `nextCursor` of the previous page (not with `offset`). */
  readonly cursor?: string;
}

export interface ListSessionsQuery extends PageQuery {
  /** Case-insensitive text in the title or working directory. */
  readonly text?: string;
}

export interface ContextQuery {
  /** `agent` messages (default) or messages for a provider (`llm`). */
  readonly format?: 'agent' | 'llm';
  readonly leaf?: string;
  /** The global position: the context as it was once this event was recorded. */
  readonly asOf?: string;
  /** Wait up to this many milliseconds for a compaction under way (not with `asOf`). */
  readonly waitForCompaction?: number;
}

export interface ContextMessage {
  readonly role: string;
  readonly [field: string]: unknown;
}

export interface SessionContext {
  readonly sessionId: string;
  readonly format: 'agent' | 'llm';
  readonly leafId: string | null;
  readonly compactionId: string | null;
  readonly messages: readonly ContextMessage[];
  readonly entryIds: readonly (string | null)[];
  readonly thinkingLevel: string;
  readonly models: Readonly<Record<string, string>>;
  readonly tokens: number;
  readonly messageTokens: readonly number[];
  readonly tokenCounter: string;
  readonly revision: string;
  readonly position: string;
  readonly asOf: string | null;
  readonly repairs: ContextRepairs;
  readonly compactionWait?: {
    readonly outcome: 'settled' | 'timed_out';
    readonly waitedMs: number;
    readonly attemptIds: readonly string[];
    /** How the attempts seen while waiting, and those of the session's newest message, ended. */
    readonly attempts: readonly CompactionReport[];
  };
}

export interface TreeNode {
  readonly id: string;
  readonly parentId: string | null;
  readonly type: string;
  readonly timestamp: string;
  readonly label: string | null;
  readonly childIds: readonly string[];
}

export interface SessionTree {
  readonly sessionId: string;
  readonly header: SessionHeader;
  readonly leafId: string | null;
  readonly rootIds: readonly string[];
  readonly nodes: readonly TreeNode[];
  readonly revision: string;
  readonly position: string;
}

/** One assistant answer of `GET /sessions/{id}/context-sizes`: its reported context and the bounds then. */
export interface ContextSizeTurn {
  readonly entryId: string;
  /** The entry's index in append order. */
  readonly index: number;
  readonly timestamp: string;
  /** `provider/model` of the answer. */
  readonly model: string;
  readonly stopReason: string;
  /** The context as the answer's usage reports it (totalTokens, else input + output + cache). */
  readonly contextTokens: number;
  readonly contextWindow: number;
  readonly reserveTokens: number;
  /** window − reserve: a measured context above it is compacted. */
  readonly threshold: number;
}

/** A compaction or branch-summary entry, placed after the `turn` answers appended before it. */
export interface ContextSizeMark {
  readonly entryId: string;
  readonly index: number;
  readonly timestamp: string;
  readonly type: 'compaction' | 'branch_summary';
  readonly turn: number;
  readonly tokensBefore: number | null;
}

export interface ContextSizes {
  readonly sessionId: string;
  readonly turns: readonly ContextSizeTurn[];
  readonly marks: readonly ContextSizeMark[];
  readonly revision: string;
  readonly position: string;
}

export interface EntriesQuery {
  /** Only the path from the root to this entry. */
  readonly leaf?: string;
  readonly offset?: number;
  readonly limit?: number;
}

export interface SessionEntries {
  readonly sessionId: string;
  readonly items: readonly SessionEntry[];
  readonly total: number;
  readonly offset: number;
  readonly limit: number;
  readonly leafId: string | null;
}

/** One entry of a session (`GET /sessions/{id}/entries/{entryId}`) and where it sits in the tree. */
export interface SessionEntryView {
  readonly sessionId: string;
  readonly entry: SessionEntry;
  readonly label: string | null;
  readonly childIds: readonly string[];
  /** Whether the entry is on the path from the root to the current leaf. */
  readonly onCurrentPath: boolean;
  readonly leafId: string | null;
  readonly revision: string;
  readonly position: string;
}

/** `POST /sessions/{id}/lease`: the writer lease in force, held by the caller. */
export interface SessionLease {
  readonly sessionId: string;
  /** `<sequence>.<nonce>`: sent as `leaseToken` on every write while the lease is in force. */
  readonly token: string;
  /** The lease's number in the session: a later lease has a higher one (fencing). */
  readonly sequence: number;
  readonly holder: string;
  /** ISO 8601: renew before then. */
  readonly expiresAt: string;
  readonly revision: string | null;
}
