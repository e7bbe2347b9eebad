// Typed builders of the entries a host appends (pi v3 messages): a user prompt, the model's
// answer, a tool's result. Each names its parent and gets a fresh id and the current time
// unless given; the engine checks the rest (README, "Input rules").

/** A block of an answer: text, thinking, or a tool call. */
export type AnswerContent =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'thinking'; readonly thinking: string }
  | {
      readonly type: 'toolCall';
      readonly id: string;
      readonly name: string;
      readonly arguments: Readonly<Record<string, unknown>>;
    };

export type StopReason = 'stop' | 'length' | 'toolUse' | 'error' | 'aborted';

export interface AnswerUsage {
  readonly input: number;
  readonly output: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
  readonly totalTokens?: number;
}

/** A message entry as the builders make it. */
export interface MessageEntry<Message> {
  readonly type: 'message';
  readonly id: string;
  readonly parentId: string | null;
  readonly timestamp: string;
  readonly message: Message;
  readonly [field: string]: unknown;
}

export interface UserMessage {
  readonly role: 'user';
  readonly content: string;
  readonly timestamp: number;
}

export interface AssistantMessage {
  readonly role: 'assistant';
  readonly content: readonly AnswerContent[];
  readonly provider: string;
  readonly model: string;
  readonly stopReason: StopReason;
  readonly usage?: AnswerUsage;
  readonly errorMessage?: string;
  readonly timestamp: number;
}

export interface ToolResultMessage {
  readonly role: 'toolResult';
  readonly toolCallId: string;
  readonly toolName: string;
  readonly content: readonly { readonly type: 'text'; readonly text: string }[];
  readonly isError: boolean;
  readonly timestamp: number;
}

/** The id and time of a new entry (a fresh id and now, unless given). */
export interface EntryStamp {
  readonly id?: string;
  /** Epoch milliseconds. */
  readonly at?: number;
}

/** A fresh entry id: 16 hexadecimal digits from a random UUID. */
export function newEntryId(): string {
  return globalThis.crypto.randomUUID().replace(/-/g, '').slice(0, 16);
}

function stamped<Message>(
  parentId: string | null,
  message: (at: number) => Message,
  stamp: EntryStamp,
): MessageEntry<Message> {
  const at = stamp.at ?? Date.now();
  return {
    type: 'message',
    id: stamp.id ?? newEntryId(),
    parentId,
    timestamp: new Date(at).toISOString(),
    message: message(at),
  };
}

export function userEntry(
  parentId: string | null,
  text: string,
  stamp: EntryStamp = {},
): MessageEntry<UserMessage> {
  return stamped(parentId, (at) => ({ role: 'user', content: text, timestamp: at }), stamp);
}

export function assistantEntry(
  parentId: string | null,
  answer: Omit<AssistantMessage, 'role' | 'timestamp'>,
  stamp: EntryStamp = {},
): MessageEntry<AssistantMessage> {
  return stamped(parentId, (at) => ({ role: 'assistant', ...answer, timestamp: at }), stamp);
}

export function toolResultEntry(
  parentId: string,
  result: {
    readonly toolCallId: string;
    readonly toolName: string;
    readonly text: string;
    readonly isError?: boolean;
  },
  stamp: EntryStamp = {},
): MessageEntry<ToolResultMessage> {
  const { toolCallId, toolName, text, isError } = result;
  return stamped(
    parentId,
    (at) => ({
      role: 'toolResult',
      toolCallId,
      toolName,
      content: [{ type: 'text', text }],
      isError: isError === true,
      timestamp: at,
    }),
    stamp,
  );
}

/** The tool calls of an answer entry, in order. */
export function toolCallsOf(
  entry: MessageEntry<AssistantMessage>,
): Extract<AnswerContent, { readonly type: 'toolCall' }>[] {
  return entry.message.content.filter(
    (block): block is Extract<AnswerContent, { readonly type: 'toolCall' }> => block.type === 'toolCall',
  );
}
