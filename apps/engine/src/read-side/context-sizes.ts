// The size of a session's context at each turn, for the audit viewer's chart (GET
// /sessions/{id}/context-sizes). A turn is an assistant answer, in append order (every branch),
// whose usage reports a context: its size is what the engine's threshold check reads of it
// (`calculateContextTokens`: the usage's totalTokens, else input + output + cache reads and
// writes, as the model reported it, not an estimate). Beside it, the window of the model that
// answered and the threshold (window − reserve) under the settings in force when it was appended
// (the engine's settings now, with the session's newest `strata.settings` entry before it); and
// every compaction and branch summary, placed after the turns appended before it.
import {
  calculateContextTokens,
  type AssistantMessage,
  type BranchSummaryEntry,
  type CompactionEntry,
  type SessionEntry,
} from '@strata/session';
import { contextWindowOf } from '../settings/engine-settings';
import type { EngineSettings } from '../settings/engine-settings.schema';
import { isSessionSettingsEntry, resolveSessionSettings } from '../settings/session-settings';

/** The turns and the marks (their fields are documented by the response schema, `ContextSizes`). */
export interface ContextSizes {
  readonly turns: readonly ReturnType<typeof turnOf>[];
  readonly marks: readonly ReturnType<typeof markOf>[];
}

function turnOf(
  entry: SessionEntry,
  index: number,
  message: AssistantMessage,
  contextTokens: number,
  settings: EngineSettings,
) {
  const model = `${message.provider}/${message.model}`;
  const contextWindow = contextWindowOf(settings, model);
  const { reserveTokens } = settings.compaction;
  return {
    entryId: entry.id,
    index,
    timestamp: entry.timestamp,
    model,
    stopReason: message.stopReason,
    contextTokens,
    contextWindow,
    reserveTokens,
    threshold: contextWindow - reserveTokens,
  };
}

function markOf(entry: CompactionEntry | BranchSummaryEntry, index: number, turn: number) {
  return {
    entryId: entry.id,
    index,
    timestamp: entry.timestamp,
    type: entry.type,
    turn,
    tokensBefore: entry.type === 'compaction' ? entry.tokensBefore : null,
  };
}

export function contextSizesOf(entries: readonly SessionEntry[], engine: EngineSettings): ContextSizes {
  const turns: ReturnType<typeof turnOf>[] = [];
  const marks: ReturnType<typeof markOf>[] = [];
  let settings = engine;
  entries.forEach((entry, index) => {
    if (isSessionSettingsEntry(entry)) {
      settings = resolveSessionSettings(engine, [entry]).settings;
    } else if (entry.type === 'compaction' || entry.type === 'branch_summary') {
      marks.push(markOf(entry, index, turns.length));
    } else if (entry.type === 'message' && entry.message.role === 'assistant') {
      const usage = entry.message.usage;
      const contextTokens = usage === undefined ? 0 : calculateContextTokens(usage);
      if (contextTokens > 0) turns.push(turnOf(entry, index, entry.message, contextTokens, settings));
    }
  });
  return { turns, marks };
}
