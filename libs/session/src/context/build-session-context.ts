// The context an agent sends to its model for one leaf of the session tree (reference §2.1):
// the root→leaf path, the latest compaction's summary and kept region, the session state
// gathered along the path, pruned tool results shown as their notice (DESIGN.md decision 2),
// answers that failed before the model said anything left out (they stay in the log), and tool
// call / result pairing repaired (reference §11.1 defect 24).
import {
  modelChangeTarget,
  type CompactionEntry,
  type SessionEntry,
  type ThinkingLevel,
} from '../entries/entries';
import type { AgentMessage, ToolResultMessage } from '../entries/messages';
import { pathToEntry } from '../tree/session-tree';
import { compactionSummaryMessage, messageFromEntry } from './message-from-entry';
import { pairToolCalls } from './tool-call-pairing';

/** Entries in append order, with their id index when the caller already holds one. */
export interface SessionEntrySource {
  readonly entries: readonly SessionEntry[];
  readonly byId?: ReadonlyMap<string, SessionEntry>;
}

/** A pruning event's effect on one tool result entry. */
export interface PrunedResult {
  /** When the result was pruned (ms). */
  readonly prunedAt: number;
  /** Estimated tokens of the output that pruning removed from the context. */
  readonly tokens: number;
}

export interface BuildSessionContextOptions {
  /** Tool results pruned by pruning events, by entry id. */
  readonly prunedResults?: ReadonlyMap<string, PrunedResult>;
  /**
   * Repair tool call / result pairing (default true). `false` reproduces the reference's
   * context exactly, orphans included; for comparisons only, never for a model call.
   */
  readonly repairToolCallPairing?: boolean;
  /**
   * Leave out answers that failed before the model said anything (default true; see
   * `isEmptyFailedAnswer`). `false` keeps them, as the reference's context does; for
   * comparisons only.
   */
  readonly omitEmptyFailedAnswers?: boolean;
  /**
   * Read oh-my-pi's fields too (default true): a model change's `model: "provider/modelId"` and
   * `role`, a compaction's `shortSummary` on its summary message. `false` reads entries as pi
   * 0.73.1 does: model changes by `provider` and `modelId` only, every one for the default role
   * (one without them leaves the model unknown), and no short summary. For comparisons only.
   */
  readonly ohMyPiFields?: boolean;
}

export interface MissingFirstKeptEntry {
  readonly compactionId: string;
  readonly firstKeptEntryId: string;
}

/** What the builder changed or noticed while building, so callers can report it. */
export interface ContextRepairs {
  /** Entry ids of tool results dropped because no open call of the preceding assistant matches. */
  readonly droppedOrphanResults: readonly string[];
  /** Tool call ids answered with a synthetic error result. */
  readonly synthesizedResults: readonly string[];
  /** The latest compaction's `firstKeptEntryId` is not on the path before it: nothing was kept. */
  readonly missingFirstKeptEntry: MissingFirstKeptEntry | null;
  /** Entry ids of answers left out because they failed before the model said anything. */
  readonly omittedFailedAnswers: readonly string[];
}

export interface SessionContext {
  readonly messages: readonly AgentMessage[];
  /** The entry behind each message; null for the compaction summary and synthetic results. */
  readonly entryIds: readonly (string | null)[];
  readonly thinkingLevel: ThinkingLevel;
  /** Model ("provider/modelId") by role; `default` follows the latest assistant message. */
  readonly models: Readonly<Record<string, string>>;
  /** oh-my-pi: every rule injected along the path, first injection order, without repeats. */
  readonly injectedTtsrRules: readonly string[];
  /** oh-my-pi: the latest `mode_change` on the path (`none` when there is none). */
  readonly mode: string;
  readonly modeData?: unknown;
  /** The leaf the context was built for (after the fallback to the last entry), or null. */
  readonly leafId: string | null;
  /** The compaction whose summary opens the context, or null. */
  readonly compactionId: string | null;
  readonly repairs: ContextRepairs;
}

/** The text a pruned tool result shows in the context. */
export function prunedResultNotice(tokens: number): string {
  return `[Output truncated - ${tokens} tokens]`;
}

const noRepairs: ContextRepairs = {
  droppedOrphanResults: [],
  synthesizedResults: [],
  missingFirstKeptEntry: null,
  omittedFailedAnswers: [],
};

/**
 * Whether a message is an answer that failed before the model said anything: an assistant
 * message that stopped with `error` and carries no tool call and no text or thinking that is not
 * blank (as a context overflow, a rate limit or an authentication failure leaves it). Such an
 * answer is the record of a failed call, not part of the conversation: sent again it would be an
 * empty assistant turn, which providers refuse or read as a prefill, so the context leaves it out
 * while the log keeps it. pi drops it before retrying, and its provider layer sends no failed
 * answer at all.
 */
export function isEmptyFailedAnswer(message: AgentMessage): boolean {
  if (message.role !== 'assistant' || message.stopReason !== 'error') return false;
  return message.content.every((block) =>
    block.type === 'text'
      ? block.text.trim().length === 0
      : block.type === 'thinking'
        ? block.thinking.trim().length === 0
        : false,
  );
}

function emptyContext(): SessionContext {
  return {
    messages: [],
    entryIds: [],
    thinkingLevel: 'off',
    models: {},
    injectedTtsrRules: [],
    mode: 'none',
    leafId: null,
    compactionId: null,
    repairs: noRepairs,
  };
}

function indexById(entries: readonly SessionEntry[]): Map<string, SessionEntry> {
  const byId = new Map<string, SessionEntry>();
  for (const entry of entries) byId.set(entry.id, entry);
  return byId;
}

/**
 * Builds the context for `leafId`: `null` gives an empty context; an unknown or undefined leaf
 * falls back to the last entry in append order. Runs in time proportional to the path length
 * when `source.byId` is given (otherwise the index is built first).
 */
export function buildSessionContext(
  source: SessionEntrySource | readonly SessionEntry[],
  leafId: string | null | undefined,
  options: BuildSessionContextOptions = {},
): SessionContext {
  const entries: readonly SessionEntry[] = isEntryArray(source) ? source : source.entries;
  const lastEntry = entries[entries.length - 1];
  if (leafId === null || lastEntry === undefined) return emptyContext();
  const byId = (isEntryArray(source) ? undefined : source.byId) ?? indexById(entries);
  const leaf = (leafId !== undefined ? byId.get(leafId) : undefined) ?? lastEntry;
  const path = rootPathTo(leaf, byId);
  const state = gatherPathState(path, options.ohMyPiFields === false);
  const compactionIndex = state.compactionIndex;

  const messages: AgentMessage[] = [];
  const entryIds: (string | null)[] = [];
  const omittedFailedAnswers: string[] = [];
  const prunedResults = options.prunedResults;
  const omitFailed = options.omitEmptyFailedAnswers ?? true;
  const emit = (entry: SessionEntry): void => {
    const message = messageFromEntry(entry);
    if (message === undefined) return;
    if (omitFailed && isEmptyFailedAnswer(message)) {
      omittedFailedAnswers.push(entry.id);
      return;
    }
    const pruned = prunedResults !== undefined ? prunedResults.get(entry.id) : undefined;
    messages.push(
      pruned !== undefined && message.role === 'toolResult' ? prunedView(message, pruned) : message,
    );
    entryIds.push(entry.id);
  };

  let compaction: CompactionEntry | null = null;
  let missingFirstKeptEntry: MissingFirstKeptEntry | null = null;
  if (compactionIndex < 0) {
    for (const entry of path) emit(entry);
  } else {
    compaction = path[compactionIndex] as CompactionEntry;
    messages.push(compactionSummaryMessage(compaction, options.ohMyPiFields !== false));
    entryIds.push(null);
    let firstKeptIndex = -1;
    for (let index = 0; index < compactionIndex; index += 1) {
      if ((path[index] as SessionEntry).id === compaction.firstKeptEntryId) {
        firstKeptIndex = index;
        break;
      }
    }
    if (firstKeptIndex < 0) {
      missingFirstKeptEntry = { compactionId: compaction.id, firstKeptEntryId: compaction.firstKeptEntryId };
    } else {
      for (let index = firstKeptIndex; index < compactionIndex; index += 1) emit(path[index] as SessionEntry);
    }
    for (let index = compactionIndex + 1; index < path.length; index += 1) emit(path[index] as SessionEntry);
  }

  const repair = options.repairToolCallPairing ?? true;
  const paired = repair ? pairToolCalls(messages, entryIds) : undefined;
  return {
    messages: paired ? paired.messages : messages,
    entryIds: paired ? paired.sourceIds : entryIds,
    ...contextSettings(state.settings),
    leafId: leaf.id,
    compactionId: compaction ? compaction.id : null,
    repairs: {
      droppedOrphanResults: paired ? paired.droppedOrphanResults : [],
      synthesizedResults: paired ? paired.synthesizedResults : [],
      missingFirstKeptEntry,
      omittedFailedAnswers,
    },
  };
}

/**
 * The settings a root→leaf path accumulates (the last value of each wins); shared with the
 * incremental context cursor of the projections, which folds the same rule one entry at a time.
 */
export interface PathSettings {
  thinkingLevel: ThinkingLevel;
  readonly models: Map<string, string>;
  readonly injectedRules: Set<string>;
  mode: string;
  modeData: unknown;
}

export function emptyPathSettings(): PathSettings {
  return {
    thinkingLevel: 'off',
    models: new Map(),
    injectedRules: new Set(),
    mode: 'none',
    modeData: undefined,
  };
}

/**
 * Folds one path entry into `settings`, in place. `piModelChangesOnly` reads model changes as
 * pi 0.73.1 does (see `ohMyPiFields`).
 */
export function applyPathEntry(
  settings: PathSettings,
  entry: SessionEntry,
  piModelChangesOnly = false,
): void {
  switch (entry.type) {
    case 'thinking_level_change':
      settings.thinkingLevel = entry.thinkingLevel;
      return;
    case 'model_change': {
      const target = modelChangeTarget(entry, piModelChangesOnly);
      if (target !== undefined) settings.models.set(target.role, target.model);
      else if (piModelChangesOnly) settings.models.delete('default');
      return;
    }
    case 'message':
      if (entry.message.role === 'assistant') {
        settings.models.set('default', `${entry.message.provider}/${entry.message.model}`);
      }
      return;
    case 'ttsr_injection':
      for (const rule of entry.injectedRules) settings.injectedRules.add(rule);
      return;
    case 'mode_change':
      settings.mode = entry.mode;
      settings.modeData = entry.data;
      return;
    case 'compaction':
    case 'branch_summary':
    case 'custom_message':
    case 'custom':
    case 'label':
    case 'session_info':
    case 'session_init':
      return;
    default: {
      const unreachable: never = entry;
      throw new Error(`unknown entry type ${JSON.stringify(unreachable)}`);
    }
  }
}

/** The part of a context the path settings give. */
export function contextSettings(
  settings: PathSettings,
): Pick<SessionContext, 'thinkingLevel' | 'models' | 'injectedTtsrRules' | 'mode' | 'modeData'> {
  return {
    thinkingLevel: settings.thinkingLevel,
    models: Object.fromEntries(settings.models),
    injectedTtsrRules: [...settings.injectedRules],
    mode: settings.mode,
    ...(settings.modeData !== undefined ? { modeData: settings.modeData } : {}),
  };
}

interface PathState {
  readonly settings: PathSettings;
  /** Index on the path of the latest compaction, or -1. */
  readonly compactionIndex: number;
}

/** One pass over the path: its settings and where its latest compaction is. */
function gatherPathState(path: readonly SessionEntry[], piModelChangesOnly: boolean): PathState {
  const settings = emptyPathSettings();
  let compactionIndex = -1;
  for (let index = 0; index < path.length; index += 1) {
    const entry = path[index] as SessionEntry;
    applyPathEntry(settings, entry, piModelChangesOnly);
    if (entry.type === 'compaction') compactionIndex = index;
  }
  return { settings, compactionIndex };
}

/**
 * The root→leaf path, as `pathToEntry` gives it, without a visited set: a walk longer than the
 * number of entries can only mean a parent cycle, and then `pathToEntry` handles it.
 */
function rootPathTo(leaf: SessionEntry, byId: ReadonlyMap<string, SessionEntry>): SessionEntry[] {
  const reversed: SessionEntry[] = [];
  let current: SessionEntry | undefined = leaf;
  while (current !== undefined) {
    if (reversed.length >= byId.size) return pathToEntry(byId, leaf.id);
    reversed.push(current);
    current = current.parentId === null ? undefined : byId.get(current.parentId);
  }
  return reversed.reverse();
}

function isEntryArray(
  source: SessionEntrySource | readonly SessionEntry[],
): source is readonly SessionEntry[] {
  return Array.isArray(source);
}

/** A pruned result as the context shows it: its output replaced by the pruning notice. */
function prunedView(message: ToolResultMessage, pruned: PrunedResult): ToolResultMessage {
  return {
    ...message,
    content: [{ type: 'text', text: prunedResultNotice(pruned.tokens) }],
    prunedAt: pruned.prunedAt,
  };
}
