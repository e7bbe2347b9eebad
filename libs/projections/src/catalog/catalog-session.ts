// The catalog's document: one row per session with what a sessions list shows (tenant, title,
// sizes, token usage, last activity, compactions), and its pure `evolve`.
import { z } from 'zod';
import {
  boundedFigure,
  boundedUsage,
  calculateContextTokens,
  MAX_RUNNING_TOTAL,
  saturatingAdd,
  sessionEventTypes,
  type SessionEntry,
  type Usage,
} from '@strata/session';
import type { DocumentProjectionDefinition, ProjectionDocument } from '../documents/document-projection';
import type { ProjectedEvent } from '../runner/projected-event';

export const CATALOG_PROJECTION_NAME = 'catalog';

/**
 * Token usage summed over the session's assistant messages. Each figure is brought into the
 * bounds of usage-bounds.ts as it is read and each sum saturates at 2^53 - 1, so the totals
 * are finite and exact for whole figures below that.
 */
export interface TokenUsageTotals {
  readonly input: number;
  readonly output: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
  /** Each message's `totalTokens`, or the sum of its parts when that is missing or zero. */
  readonly totalTokens: number;
  /** Sum of `cost.total` where reported. */
  readonly cost: number;
}

export interface CatalogSession extends ProjectionDocument {
  readonly sessionId: string;
  /** From the metadata of the event that started the session. */
  readonly tenant: string;
  /** The latest `session_info` name, else the header's title, else null. */
  readonly title: string | null;
  readonly headerTitle: string | null;
  readonly sessionName: string | null;
  readonly cwd: string;
  /** The header's timestamp. */
  readonly createdAt: string;
  readonly parentSession: string | null;
  readonly entryCount: number;
  /** `message` entries, every role. */
  readonly messageCount: number;
  readonly usage: TokenUsageTotals;
  /** `compaction` entries (written by the engine or imported). */
  readonly compactionCount: number;
  readonly branchSummaryCount: number;
  readonly leafId: string | null;
  /** When the store recorded the session's latest event. */
  readonly lastActivityAt: string;
  /** The timestamp of the latest appended entry. */
  readonly lastEntryAt: string | null;
}

export const emptyUsageTotals: TokenUsageTotals = {
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 0,
  cost: 0,
};

const count = z.number().int().nonnegative();
const nullableText = z.string().nullable();

/**
 * A stored usage total, read within the bounds the sums keep. Only an engine from before the
 * saturating sums could store one outside them: a huge or negative figure, or null (JSON's
 * spelling of Infinity), which reads as the saturated total it stands for.
 */
const usageTotal = z
  .number()
  .nullable()
  .transform((total) => (total === null ? MAX_RUNNING_TOTAL : boundedFigure(total, MAX_RUNNING_TOTAL)));

/** The stored form of a catalog document (its position is kept beside it). */
export const storedCatalogSessionSchema = z.object({
  sessionId: z.string(),
  tenant: z.string(),
  title: nullableText,
  headerTitle: nullableText,
  sessionName: nullableText,
  cwd: z.string(),
  createdAt: z.string(),
  parentSession: nullableText,
  entryCount: count,
  messageCount: count,
  usage: z.object({
    input: usageTotal,
    output: usageTotal,
    cacheRead: usageTotal,
    cacheWrite: usageTotal,
    totalTokens: usageTotal,
    cost: usageTotal,
  }),
  compactionCount: count,
  branchSummaryCount: count,
  leafId: nullableText,
  lastActivityAt: z.string(),
  lastEntryAt: nullableText,
}) satisfies z.ZodType<Omit<CatalogSession, 'position'>>;

/** Lower-cased title and cwd: what the catalog's text search looks in. */
export function catalogSearchText(session: CatalogSession): string {
  return `${session.title ?? ''}\n${session.cwd}`.toLowerCase();
}

function addUsage(totals: TokenUsageTotals, recorded: Usage): TokenUsageTotals {
  const usage = boundedUsage(recorded);
  return {
    input: saturatingAdd(totals.input, usage.input),
    output: saturatingAdd(totals.output, usage.output),
    cacheRead: saturatingAdd(totals.cacheRead, usage.cacheRead),
    cacheWrite: saturatingAdd(totals.cacheWrite, usage.cacheWrite),
    totalTokens: saturatingAdd(totals.totalTokens, calculateContextTokens(usage)),
    cost: saturatingAdd(totals.cost, usage.cost?.total ?? 0),
  };
}

/** The session after an entry the store recorded at `recordedAt`, `position` (one copy per event). */
function withEntry(
  session: CatalogSession,
  entry: SessionEntry,
  projected: Pick<ProjectedEvent, 'recordedAt' | 'position'>,
): CatalogSession {
  const isMessage = entry.type === 'message';
  const usage = isMessage && entry.message.role === 'assistant' ? entry.message.usage : undefined;
  const sessionName = entry.type === 'session_info' ? entry.name || null : session.sessionName;
  return {
    ...session,
    lastActivityAt: projected.recordedAt,
    position: projected.position,
    entryCount: session.entryCount + 1,
    messageCount: session.messageCount + (isMessage ? 1 : 0),
    usage: usage !== undefined ? addUsage(session.usage, usage) : session.usage,
    compactionCount: session.compactionCount + (entry.type === 'compaction' ? 1 : 0),
    branchSummaryCount: session.branchSummaryCount + (entry.type === 'branch_summary' ? 1 : 0),
    sessionName,
    title: sessionName ?? session.headerTitle,
    leafId: entry.id,
    lastEntryAt: entry.timestamp,
  };
}

/**
 * The catalog's evolve: a session appears with `SessionStarted` (events before it change
 * nothing, as in the decider's fold); every later event counts as activity.
 */
export function evolveCatalogSession(
  session: CatalogSession | null,
  projected: ProjectedEvent,
): CatalogSession | null {
  const { event } = projected;
  if (session === null) {
    if (event.type !== 'SessionStarted') return null;
    const { header } = event.data;
    return {
      sessionId: projected.sessionId,
      tenant: projected.tenant,
      title: header.title ?? null,
      headerTitle: header.title ?? null,
      sessionName: null,
      cwd: header.cwd,
      createdAt: header.timestamp,
      parentSession: header.parentSession ?? null,
      entryCount: 0,
      messageCount: 0,
      usage: emptyUsageTotals,
      compactionCount: 0,
      branchSummaryCount: 0,
      leafId: null,
      lastActivityAt: projected.recordedAt,
      lastEntryAt: null,
      position: projected.position,
    };
  }
  if (event.type === 'EntryAppended') return withEntry(session, event.data.entry, projected);
  const touched = { ...session, lastActivityAt: projected.recordedAt, position: projected.position };
  switch (event.type) {
    case 'LeafMoved':
      return { ...touched, leafId: event.data.leafId };
    case 'SessionStarted':
    case 'ToolOutputsPruned':
    case 'CompactionStarted':
    case 'CompactionCompleted':
    case 'CompactionSkipped':
    case 'CompactionCancelled':
    case 'CompactionFailed':
    case 'BranchSummaryStarted':
    case 'BranchSummaryCompleted':
    case 'BranchSummarySkipped':
    case 'BranchSummaryCancelled':
    case 'BranchSummaryFailed':
    case 'ContinuationRequested':
    case 'LeaseTaken':
    case 'LeaseRenewed':
    case 'LeaseReleased':
    case 'LeaseExpired':
      return touched;
    default: {
      const unhandled: never = event;
      throw new Error(`unhandled session event ${JSON.stringify(unhandled)}`);
    }
  }
}

export const catalogProjectionDefinition: DocumentProjectionDefinition<CatalogSession> = {
  name: CATALOG_PROJECTION_NAME,
  eventTypes: sessionEventTypes,
  documentId: (event) => event.sessionId,
  evolve: evolveCatalogSession,
  sessionOf: (document) => document.sessionId,
};
