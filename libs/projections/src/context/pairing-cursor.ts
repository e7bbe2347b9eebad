// Tool call / result pairing (`pairToolCalls` of @strata/session) kept open-ended, so that the
// context of the current leaf grows by one message at a time instead of being paired again
// from the start. It follows the same rules in the same order: a result is kept only when it
// answers an unanswered call of the nearest assistant message before it; calls still open at
// the next assistant message (or at the end, when read) get a synthetic error result right
// after the last kept result, before the messages held back behind it. Each message carries
// its token count, so the total is a running sum.
import {
  syntheticToolResult,
  type AgentMessage,
  type AssistantMessage,
  type ToolCall,
} from '@strata/session';

export interface CountedMessage {
  readonly message: AgentMessage;
  /** The entry behind the message; null for a compaction summary or a synthetic result. */
  readonly sourceId: string | null;
  readonly tokens: number;
}

export interface PairedSnapshot {
  readonly messages: readonly AgentMessage[];
  readonly sourceIds: readonly (string | null)[];
  readonly messageTokens: readonly number[];
  readonly tokens: number;
  readonly droppedOrphanResults: readonly string[];
  readonly synthesizedResults: readonly string[];
}

export class PairingCursor {
  private readonly messages: AgentMessage[] = [];
  private readonly sourceIds: (string | null)[] = [];
  private readonly messageTokens: number[] = [];
  private tokens = 0;
  private readonly droppedOrphanResults: string[] = [];
  private readonly synthesizedResults: string[] = [];
  private openAssistant: AssistantMessage | null = null;
  private readonly unansweredCalls = new Map<string, ToolCall>();
  /** Messages after the open assistant message's last kept result. */
  private held: CountedMessage[] = [];

  constructor(private readonly syntheticTokens: (message: AgentMessage) => number) {}

  push(counted: CountedMessage): void {
    const { message } = counted;
    if (message.role === 'assistant') {
      this.closeOpenAssistant();
      this.emit(counted);
      for (const block of message.content) {
        if (block.type === 'toolCall' && !this.unansweredCalls.has(block.id)) {
          this.unansweredCalls.set(block.id, block);
        }
      }
      if (this.unansweredCalls.size > 0) this.openAssistant = message;
    } else if (message.role === 'toolResult') {
      if (this.openAssistant !== null && this.unansweredCalls.delete(message.toolCallId)) {
        this.releaseHeld();
        this.emit(counted);
      } else {
        this.droppedOrphanResults.push(counted.sourceId ?? message.toolCallId);
      }
    } else if (this.openAssistant !== null) {
      this.held.push(counted);
    } else {
      this.emit(counted);
    }
  }

  /**
   * The paired messages as they stand, with the open assistant message closed (nothing changes).
   * Copies the lists of references (the caller keeps them), but walks and counts nothing again.
   */
  snapshot(): PairedSnapshot {
    const messages = this.messages.slice();
    const sourceIds = this.sourceIds.slice();
    const messageTokens = this.messageTokens.slice();
    const synthesizedResults = this.synthesizedResults.slice();
    let tokens = this.tokens;
    const add = (counted: CountedMessage): void => {
      messages.push(counted.message);
      sourceIds.push(counted.sourceId);
      messageTokens.push(counted.tokens);
      tokens += counted.tokens;
    };
    if (this.openAssistant !== null) {
      for (const synthetic of this.syntheticResults(this.openAssistant)) {
        add(synthetic);
        synthesizedResults.push(synthetic.callId);
      }
    }
    for (const counted of this.held) add(counted);
    return {
      messages,
      sourceIds,
      messageTokens,
      tokens,
      droppedOrphanResults: this.droppedOrphanResults.slice(),
      synthesizedResults,
    };
  }

  private syntheticResults(assistant: AssistantMessage): (CountedMessage & { readonly callId: string })[] {
    return [...this.unansweredCalls.values()].map((call) => {
      const message = syntheticToolResult(call, assistant);
      return { message, sourceId: null, tokens: this.syntheticTokens(message), callId: call.id };
    });
  }

  private closeOpenAssistant(): void {
    if (this.openAssistant !== null) {
      for (const synthetic of this.syntheticResults(this.openAssistant)) {
        this.emit(synthetic);
        this.synthesizedResults.push(synthetic.callId);
      }
    }
    this.releaseHeld();
    this.openAssistant = null;
    this.unansweredCalls.clear();
  }

  private releaseHeld(): void {
    for (const counted of this.held) this.emit(counted);
    this.held = [];
  }

  private emit(counted: CountedMessage): void {
    this.messages.push(counted.message);
    this.sourceIds.push(counted.sourceId);
    this.messageTokens.push(counted.tokens);
    this.tokens += counted.tokens;
  }
}
