// Agent messages → the three roles a provider understands (reference §2.2). User and assistant
// messages pass through; shell and Python runs, extension messages, summaries and file mentions
// become user messages; pruned tool results keep only their text. Roles are never merged here.
import type { ImageContent, TextContent } from '../entries/content';
import type {
  AgentMessage,
  AssistantMessage,
  BashExecutionMessage,
  FileMentionMessage,
  PythonExecutionMessage,
  ToolResultMessage,
} from '../entries/messages';
import { type ContextTemplates, renderTemplate } from './context-templates';
import { outputNotice } from './output-notice';

export type LlmContentBlock = TextContent | ImageContent;

export interface LlmUserMessage {
  readonly role: 'user';
  readonly content: string | readonly LlmContentBlock[];
  readonly synthetic?: boolean;
  readonly timestamp: number;
}

export type LlmAssistantMessage = AssistantMessage;

export interface LlmToolResultMessage {
  readonly role: 'toolResult';
  readonly toolCallId: string;
  readonly toolName: string;
  readonly content: readonly LlmContentBlock[];
  readonly details?: unknown;
  readonly isError: boolean;
  readonly prunedAt?: number;
  readonly timestamp: number;
}

/** A message ready for a provider adapter. */
export type LlmMessage = LlmUserMessage | LlmAssistantMessage | LlmToolResultMessage;

/** Shown instead of a pruned tool result that kept no text. */
export const PRUNED_RESULT_FALLBACK_TEXT = '[Output truncated]';

function textMessage(text: string, timestamp: number): LlmUserMessage {
  return { role: 'user', content: [{ type: 'text', text }], timestamp };
}

/** A pruned result keeps one text block: its text blocks joined, images dropped. */
function prunedToolResult(message: ToolResultMessage): LlmToolResultMessage {
  let text = '';
  for (const block of message.content) if (block.type === 'text') text += block.text;
  return {
    ...message,
    content: [{ type: 'text', text: text.length > 0 ? text : PRUNED_RESULT_FALLBACK_TEXT }],
  };
}

function failedExitCode(exitCode: number | null | undefined): exitCode is number {
  return exitCode !== null && exitCode !== undefined && exitCode !== 0;
}

/**
 * The user-message text of a shell command the user ran (`!command`): pi's text, its notice of a
 * truncated output saved in full (`fullOutputPath`) included, then oh-my-pi's notices from `meta`.
 */
export function bashExecutionText(message: BashExecutionMessage): string {
  let text = `Ran \`${message.command}\`\n`;
  text += message.output ? `\`\`\`\n${message.output}\n\`\`\`` : '(no output)';
  if (message.cancelled) text += '\n\n(command cancelled)';
  else if (failedExitCode(message.exitCode)) text += `\n\nCommand exited with code ${message.exitCode}`;
  if (message.truncated && message.fullOutputPath) {
    text += `\n\n[Output truncated. Full output: ${message.fullOutputPath}]`;
  }
  return text + outputNotice(message.meta);
}

/** The user-message text of Python code the user ran. */
export function pythonExecutionText(message: PythonExecutionMessage): string {
  let text = `Ran Python:\n\`\`\`python\n${message.code}\n\`\`\`\n`;
  text += message.output ? `Output:\n\`\`\`\n${message.output}\n\`\`\`` : '(no output)';
  if (message.cancelled) text += '\n\n(execution cancelled)';
  else if (failedExitCode(message.exitCode)) text += `\n\nExecution failed with code ${message.exitCode}`;
  return text + outputNotice(message.meta);
}

/** Files read through `@file` mentions, as one system reminder followed by their images. */
function fileMentionMessage(message: FileMentionMessage): LlmUserMessage {
  const files = message.files.map((file) => {
    const body = file.content ? `\n${file.content}\n` : '\n';
    return `<file path="${file.path}">${body}</file>`;
  });
  const content: LlmContentBlock[] = [
    { type: 'text', text: `<system-reminder>\n${files.join('\n\n')}\n</system-reminder>` },
  ];
  for (const file of message.files) if (file.image) content.push(file.image);
  return { role: 'user', content, timestamp: message.timestamp };
}

/** The provider message for one agent message, or undefined when it stays out of the context. */
export function convertMessageToLlm(
  message: AgentMessage,
  templates: ContextTemplates,
): LlmMessage | undefined {
  switch (message.role) {
    case 'user':
    case 'assistant':
      return message;
    case 'toolResult':
      return message.prunedAt !== undefined ? prunedToolResult(message) : message;
    case 'bashExecution':
      return message.excludeFromContext
        ? undefined
        : textMessage(bashExecutionText(message), message.timestamp);
    case 'pythonExecution':
      return message.excludeFromContext
        ? undefined
        : textMessage(pythonExecutionText(message), message.timestamp);
    case 'custom':
      return typeof message.content === 'string'
        ? textMessage(message.content, message.timestamp)
        : { role: 'user', content: message.content, timestamp: message.timestamp };
    case 'branchSummary':
      return textMessage(
        renderTemplate(templates.branchSummaryContext, { summary: message.summary }),
        message.timestamp,
      );
    case 'compactionSummary':
      return textMessage(
        renderTemplate(templates.compactionSummaryContext, { summary: message.summary }),
        message.timestamp,
      );
    case 'fileMention':
      return fileMentionMessage(message);
    default: {
      const unreachable: never = message;
      throw new Error(`unknown message role ${JSON.stringify(unreachable)}`);
    }
  }
}

/** Converts a context's messages for a provider, in order, leaving out the excluded ones. */
export function convertToLlm(messages: readonly AgentMessage[], templates: ContextTemplates): LlmMessage[] {
  const converted: LlmMessage[] = [];
  for (const message of messages) {
    const llmMessage = convertMessageToLlm(message, templates);
    if (llmMessage !== undefined) converted.push(llmMessage);
  }
  return converted;
}
