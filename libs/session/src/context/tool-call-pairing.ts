// Tool call / tool result pairing of a built context (the fix of reference §11.1 defect 24).
// Providers reject a tool result whose call is not in the preceding assistant message, and an
// assistant tool call that never gets a result. Chained or hook-driven compactions and writes
// made during a compaction have produced both; the context builder repairs them here.
import type { AgentMessage, AssistantMessage, ToolResultMessage } from '../entries/messages';
import type { ToolCall } from '../entries/content';

/** Why a synthetic tool result was inserted (recorded in its `details`). */
export const SYNTHETIC_RESULT_REASON = 'no-result-recorded';

export const SYNTHETIC_RESULT_TEXT =
  'No result was recorded for this tool call (it was interrupted, or its result was lost). ' +
  'Treat the call as failed and run it again if it is still needed.';

export interface PairedMessages {
  readonly messages: AgentMessage[];
  /** The source id behind each message; null for the synthetic results. */
  readonly sourceIds: (string | null)[];
  /** Source ids (or tool call ids when a result has none) of the results that were dropped. */
  readonly droppedOrphanResults: string[];
  /** Tool call ids that were answered with a synthetic error result. */
  readonly synthesizedResults: string[];
}

/** The synthetic error result standing in for the missing result of `call`. */
export function syntheticToolResult(call: ToolCall, assistant: AssistantMessage): ToolResultMessage {
  return {
    role: 'toolResult',
    toolCallId: call.id,
    toolName: call.name,
    content: [{ type: 'text', text: SYNTHETIC_RESULT_TEXT }],
    details: { synthetic: true, reason: SYNTHETIC_RESULT_REASON },
    isError: true,
    timestamp: assistant.timestamp,
  };
}

/**
 * Enforces the pairing rule in one pass, without reordering the recorded messages:
 * - a tool result is kept only when it answers a still-unanswered call of the nearest assistant
 *   message before it; any other result (no such call, a call of an older assistant message, or
 *   a second answer) is dropped;
 * - a call still unanswered when the next assistant message (or the end) is reached gets a
 *   synthetic error result, placed right after the last kept result of its assistant message
 *   (or right after the assistant message when it has none).
 */
export function pairToolCalls(
  messages: readonly AgentMessage[],
  sourceIds: readonly (string | null)[],
): PairedMessages {
  const outputMessages: AgentMessage[] = [];
  const outputIds: (string | null)[] = [];
  const droppedOrphanResults: string[] = [];
  const synthesizedResults: string[] = [];

  let openAssistant: AssistantMessage | null = null;
  const unansweredCalls = new Map<string, ToolCall>();
  // Messages after the open assistant message's last kept result, held back so that synthetic
  // results can still be placed before them.
  let heldMessages: AgentMessage[] = [];
  let heldIds: (string | null)[] = [];

  const releaseHeld = (): void => {
    for (let index = 0; index < heldMessages.length; index += 1) {
      outputMessages.push(heldMessages[index] as AgentMessage);
      outputIds.push(heldIds[index] ?? null);
    }
    heldMessages = [];
    heldIds = [];
  };

  const closeOpenAssistant = (): void => {
    if (openAssistant !== null) {
      for (const call of unansweredCalls.values()) {
        outputMessages.push(syntheticToolResult(call, openAssistant));
        outputIds.push(null);
        synthesizedResults.push(call.id);
      }
    }
    releaseHeld();
    openAssistant = null;
    unansweredCalls.clear();
  };

  for (let index = 0; index < messages.length; index += 1) {
    const message = messages[index] as AgentMessage;
    const sourceId = sourceIds[index] ?? null;
    if (message.role === 'assistant') {
      closeOpenAssistant();
      outputMessages.push(message);
      outputIds.push(sourceId);
      for (const block of message.content) {
        if (block.type === 'toolCall' && !unansweredCalls.has(block.id)) unansweredCalls.set(block.id, block);
      }
      if (unansweredCalls.size > 0) openAssistant = message;
    } else if (message.role === 'toolResult') {
      if (openAssistant !== null && unansweredCalls.delete(message.toolCallId)) {
        releaseHeld();
        outputMessages.push(message);
        outputIds.push(sourceId);
      } else {
        droppedOrphanResults.push(sourceId ?? message.toolCallId);
      }
    } else if (openAssistant !== null) {
      heldMessages.push(message);
      heldIds.push(sourceId);
    } else {
      outputMessages.push(message);
      outputIds.push(sourceId);
    }
  }
  closeOpenAssistant();

  return { messages: outputMessages, sourceIds: outputIds, droppedOrphanResults, synthesizedResults };
}
