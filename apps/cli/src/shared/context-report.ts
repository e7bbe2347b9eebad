// The context of one leaf as the CLI prints it: the JSON object of `strata context --json`
// (agent messages, provider-ready messages, thinking level, models) and a readable view.
import {
  buildSessionContext,
  convertToLlm,
  estimateMessageTokens,
  type AgentMessage,
  type ContextTemplates,
  type LlmMessage,
  type PrunedResult,
  type SessionEntry,
  type SessionContext,
  type TokenCounter,
} from '@strata/session';

export interface ContextReport {
  readonly messages: readonly AgentMessage[];
  readonly llm: readonly LlmMessage[];
  readonly thinkingLevel: string;
  readonly models: Readonly<Record<string, string>>;
  readonly leafId: string | null;
  readonly tokenizer: string;
  readonly estimatedTokens: number;
  readonly repairs: SessionContext['repairs'];
}

export interface ContextReportInput {
  readonly entries: readonly SessionEntry[];
  /** The last entry when absent; null for the empty context before the first entry. */
  readonly leafId?: string | null;
  readonly prunedResults?: ReadonlyMap<string, PrunedResult>;
  readonly counter: TokenCounter;
  readonly templates: ContextTemplates;
}

export function buildContextReport(input: ContextReportInput): ContextReport {
  const context = buildSessionContext(input.entries, input.leafId, {
    ...(input.prunedResults ? { prunedResults: input.prunedResults } : {}),
  });
  const estimatedTokens = context.messages.reduce(
    (total, message) => total + estimateMessageTokens(message, input.counter),
    0,
  );
  return {
    messages: context.messages,
    llm: convertToLlm(context.messages, input.templates),
    thinkingLevel: context.thinkingLevel,
    models: context.models,
    leafId: context.leafId,
    tokenizer: input.counter.name,
    estimatedTokens,
    repairs: context.repairs,
  };
}

const previewLength = 100;

function preview(message: AgentMessage): string {
  const text = (() => {
    switch (message.role) {
      case 'user':
      case 'custom':
      case 'toolResult':
        return typeof message.content === 'string'
          ? message.content
          : message.content.map((block) => (block.type === 'text' ? block.text : '[image]')).join(' ');
      case 'assistant':
        return message.content
          .map((block) =>
            block.type === 'text'
              ? block.text
              : block.type === 'thinking'
                ? '[thinking]'
                : `${block.name}(…)`,
          )
          .join(' ');
      case 'bashExecution':
        return `$ ${message.command}`;
      case 'pythonExecution':
        return `>>> ${message.code}`;
      case 'fileMention':
        return message.files.map((file) => `@${file.path}`).join(' ');
      case 'branchSummary':
      case 'compactionSummary':
        return message.summary;
      default: {
        const unreachable: never = message;
        return String(unreachable);
      }
    }
  })().replace(/\s+/g, ' ');
  return text.length > previewLength ? `${text.slice(0, previewLength - 1)}…` : text;
}

export function renderContextReport(report: ContextReport, counter: TokenCounter): string {
  const models = Object.entries(report.models)
    .map(([role, model]) => `${role}=${model}`)
    .join(', ');
  const lines = [
    `leaf ${report.leafId ?? '(none)'}: ${report.messages.length} messages, ~${report.estimatedTokens} tokens (${report.tokenizer})`,
    `thinking level ${report.thinkingLevel}; models ${models || '(none)'}`,
  ];
  const { droppedOrphanResults, synthesizedResults, missingFirstKeptEntry, omittedFailedAnswers } =
    report.repairs;
  if (droppedOrphanResults.length > 0 || synthesizedResults.length > 0 || missingFirstKeptEntry) {
    lines.push(
      `repairs: ${droppedOrphanResults.length} orphan tool result(s) dropped, ${synthesizedResults.length} missing result(s) filled` +
        (missingFirstKeptEntry ? `, first kept entry ${missingFirstKeptEntry.firstKeptEntryId} missing` : ''),
    );
  }
  if (omittedFailedAnswers.length > 0) {
    lines.push(`left out: ${omittedFailedAnswers.length} failed answer(s) without content (kept in the log)`);
  }
  lines.push('');
  const width = String(report.messages.length).length;
  report.messages.forEach((message, index) => {
    const tokens = estimateMessageTokens(message, counter);
    lines.push(
      `${String(index + 1).padStart(width)}  ${message.role.padEnd(17)} ${String(tokens).padStart(6)}t  ${preview(message)}`,
    );
  });
  return `${lines.join('\n')}\n`;
}
