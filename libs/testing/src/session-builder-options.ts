// Option and spec types of the SessionBuilder (session-builder.ts).
import type { ImageContent, StopReason, Usage } from '@strata/session';

export const DEFAULT_BUILDER_BASE_TIME = '2026-01-01T00:00:00.000Z';

export interface SessionBuilderOptions {
  /** Session id of the header. Default `0000000000000001`. */
  readonly sessionId?: string;
  /** ISO time of the header; entry n (1-based) is stamped `baseTime + n` seconds. */
  readonly baseTime?: string;
  readonly cwd?: string;
  /** Prefix of the generated entry ids (`e` gives `e0001`). */
  readonly idPrefix?: string;
}

export interface AssistantOptions {
  /** Default: derived from the content length (input 1000 + 100 per entry, output = chars / 4). */
  readonly usage?: Partial<Usage>;
  /** Default `toolUse` when the content holds tool calls, otherwise `stop`. */
  readonly stopReason?: StopReason;
  readonly errorMessage?: string;
  readonly provider?: string;
  readonly model?: string;
  readonly api?: string;
}

export interface ToolCallSpec {
  readonly name: string;
  readonly arguments?: Record<string, unknown>;
  /** Default `call_0001`, `call_0002`… in builder order. */
  readonly id?: string;
}

export interface ToolResultOptions {
  readonly isError?: boolean;
  /** Default: the oldest unanswered tool call with the same tool name, else a fresh id. */
  readonly toolCallId?: string;
  readonly image?: ImageContent;
  readonly details?: unknown;
}

export interface BashOptions {
  readonly exitCode?: number;
  readonly cancelled?: boolean;
  readonly truncated?: boolean;
  readonly excludeFromContext?: boolean;
}

export interface CustomContentOptions {
  readonly display?: boolean;
  readonly details?: unknown;
}

export interface CompactionSpec {
  readonly firstKeptEntryId: string;
  readonly tokensBefore: number;
  readonly summary?: string;
  readonly shortSummary?: string;
  /** File lists, or an extension's own JSON when `fromHook` or `fromExtension` is set. */
  readonly details?: unknown;
  readonly fromExtension?: boolean;
  /** pi's flag for an extension's compaction. */
  readonly fromHook?: boolean;
}

export interface BranchSummaryOptions {
  /** File lists, or an extension's own JSON when `fromHook` or `fromExtension` is set. */
  readonly details?: unknown;
  readonly fromExtension?: boolean;
  /** pi's flag for an extension's branch summary. */
  readonly fromHook?: boolean;
}
