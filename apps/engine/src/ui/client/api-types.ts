// The shapes the viewer reads from the engine's HTTP API (see the OpenAPI document at
// /docs/openapi.json and apps/engine/src/http/sessions/session-responses.schemas.ts). Only the
// fields the viewer uses are spelled out; revisions and positions are decimal strings.

export interface UsageTotals {
  readonly input: number;
  readonly output: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
  readonly totalTokens: number;
  readonly cost: number;
}

export interface SessionSummary {
  readonly sessionId: string;
  readonly title: string | null;
  readonly cwd: string;
  readonly createdAt: string;
  readonly parentSession: string | null;
  readonly entryCount: number;
  readonly messageCount: number;
  readonly usage: UsageTotals;
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

export interface SessionHeader {
  readonly id: string;
  readonly timestamp: string;
  readonly cwd: string;
  readonly title?: string;
}

export interface SessionDetail extends SessionSummary {
  readonly header: SessionHeader;
  readonly labels: Readonly<Record<string, string>>;
  readonly revision: string;
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
  readonly leafId: string | null;
  readonly rootIds: readonly string[];
  /** In append order: a node's index is its offset in the entries endpoint. */
  readonly nodes: readonly TreeNode[];
  readonly revision: string;
  readonly position: string;
}

/** A session entry (any type); its other fields depend on `type`. */
export interface SessionEntry {
  readonly type: string;
  readonly id: string;
  readonly parentId: string | null;
  readonly timestamp: string;
  readonly [field: string]: unknown;
}

export interface EntriesPage {
  readonly items: readonly SessionEntry[];
  readonly total: number;
  readonly offset: number;
  readonly limit: number;
}

/** An agent message of a context (any role). */
export interface ContextMessage {
  readonly role: string;
  readonly [field: string]: unknown;
}

export interface SessionContext {
  readonly sessionId: string;
  readonly leafId: string | null;
  readonly compactionId: string | null;
  readonly messages: readonly ContextMessage[];
  readonly entryIds: readonly (string | null)[];
  readonly thinkingLevel: string;
  readonly models: Readonly<Record<string, string>>;
  readonly tokens: number;
  readonly messageTokens: readonly number[];
  readonly tokenCounter: string;
  readonly position: string;
}

export type AttemptKind = 'compaction' | 'branch_summary';
export type AttemptOutcome = 'pending' | 'completed' | 'skipped' | 'cancelled' | 'failed';

/** One request the attempt sent to a summariser candidate, answered or failed. */
export interface SummaryCall {
  readonly purpose: string;
  readonly summarizer: string;
  readonly retry: number;
  readonly model: string | null;
  readonly usage: { readonly input: number; readonly output: number } | null;
  readonly durationMs: number;
  readonly error: { readonly message: string; readonly code: string | null } | null;
}

export interface AuditAttempt {
  readonly sessionId: string;
  readonly attemptId: string;
  readonly kind: AttemptKind;
  readonly trigger: string | null;
  readonly outcome: AttemptOutcome;
  readonly reason: string | null;
  readonly error: { readonly message: string; readonly code: string | null } | null;
  readonly model: string | null;
  readonly tokensBefore: number | null;
  readonly estimatedTokensAfter: number | null;
  readonly usage: { readonly input: number; readonly output: number } | null;
  readonly durationMs: number | null;
  readonly startedAt: string;
  readonly endedAt: string | null;
  readonly entryId: string | null;
  readonly preparedAtLeafId: string | null;
  readonly firstKeptEntryId: string | null;
  readonly targetId: string | null;
  readonly oldLeafId: string | null;
  readonly newLeafId: string | null;
  readonly continuation: string | null;
  /** What the request asked the summary to focus on. */
  readonly customInstructions: string | null;
  /** Who started the attempt (an API key's name, `strata-engine` for a saga) and for whom. */
  readonly actor: string | null;
  readonly onBehalfOf: string | null;
  readonly summaryCalls: readonly SummaryCall[];
  readonly summaryCallsOmitted: number;
  readonly startPosition: string;
  readonly position: string;
}

export interface AttemptList {
  readonly items: readonly AuditAttempt[];
  readonly total: number;
  readonly nextCursor: string | null;
}

export interface SessionVerification {
  readonly sessionId: string;
  readonly ok: boolean;
  readonly events: number;
  readonly headHash: string | null;
  readonly brokenAt: { readonly revision: string; readonly eventId: string; readonly reason: string } | null;
}

/** Where a search (`GET /sessions?q=`) found the session: null when only its title or directory matched. */
export interface SearchMatch {
  readonly entryId: string;
  readonly excerpt: string;
  readonly matchingEntries: number;
}

export interface SearchResults {
  readonly items: readonly (SessionSummary & { readonly match: SearchMatch | null })[];
  readonly total: number;
  readonly nextOffset: number | null;
  /** A bound of the search was reached: more sessions may match. */
  readonly truncated: boolean;
}

/** One raw event of a session (`GET /sessions/{id}/events`). */
export interface RawEvent {
  readonly revision: string;
  readonly position: string;
  readonly type: string;
  readonly id: string;
  readonly actor: string | null;
  readonly onBehalfOf?: string | null;
  readonly time: string;
  readonly hash: string | null;
  readonly previousHash: string | null;
}

export interface RawEventsPage {
  readonly sessionId: string;
  readonly events: readonly RawEvent[];
  readonly next: string | null;
}
