// Where a conversation rests (reference §9, issue 13): the moments at which pi checks whether
// to compact. An agent loop calls the model, runs the tools an answer asks for, and calls the
// model again with their results; only an answer that asks for no tool (or that failed or was
// aborted, which stops the loop) ends the turn. Between a tool call and the model's next answer
// the loop is still running, and nothing may be attached to the session there.
import type { SessionEntry } from '../entries/entries';
import type { AssistantMessage } from '../entries/messages';

/** Whether the answer asks for at least one tool. */
export function hasToolCalls(message: AssistantMessage): boolean {
  return message.content.some((block) => block.type === 'toolCall');
}

/**
 * Whether the answer ends its turn: it asks for no tool, or it failed or was aborted (the loop
 * stops there whatever the answer holds). An answer with tool calls, `stopReason: "toolUse"`,
 * is followed by their results and another call of the model.
 */
export function endsTurn(message: AssistantMessage): boolean {
  return message.stopReason === 'error' || message.stopReason === 'aborted' || !hasToolCalls(message);
}

/** Entries that are part of the conversation (the others — model, label, settings… — are metadata). */
function isConversation(entry: SessionEntry): boolean {
  return (
    entry.type === 'message' ||
    entry.type === 'custom_message' ||
    entry.type === 'branch_summary' ||
    entry.type === 'compaction'
  );
}

/** Whether nothing but metadata follows the entry at `index` on the path. */
export function isLatestInConversation(pathEntries: readonly SessionEntry[], index: number): boolean {
  for (let later = index + 1; later < pathEntries.length; later += 1) {
    const entry = pathEntries[later];
    if (entry !== undefined && isConversation(entry)) return false;
  }
  return index >= 0 && index < pathEntries.length;
}

/**
 * Whether the path rests at the end of a turn: its newest message is an assistant answer that
 * ends its turn (a compaction or metadata may follow it). False in the middle of a tool loop
 * (the newest message is an answer with tool calls, or a tool result) and while a prompt waits
 * for its answer (the newest message is the user's).
 */
export function restsAtTurnEnd(pathEntries: readonly SessionEntry[]): boolean {
  for (let index = pathEntries.length - 1; index >= 0; index -= 1) {
    const entry = pathEntries[index];
    if (entry?.type !== 'message') continue;
    return entry.message.role === 'assistant' && endsTurn(entry.message);
  }
  return false;
}
