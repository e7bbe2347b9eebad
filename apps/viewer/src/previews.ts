// One-line previews of entries and context messages, and the number, duration and time formats
// the viewer shows. Pure: no DOM, no clock.
import type { ContextMessage, SessionEntry } from '@strata/client/browser';

const PREVIEW_LENGTH = 160;

function oneLine(text: string): string {
  const collapsed = text.replace(/\s+/g, ' ').trim();
  return collapsed.length > PREVIEW_LENGTH ? `${collapsed.slice(0, PREVIEW_LENGTH - 1)}…` : collapsed;
}

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function textField(value: unknown, field: string): string | undefined {
  if (!isRecord(value)) return undefined;
  const found = value[field];
  return typeof found === 'string' ? found : undefined;
}

/** The readable text of message content: a string, or blocks of text, thinking and tool calls. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((block: unknown) => {
      if (!isRecord(block)) return '';
      switch (block['type']) {
        case 'text':
          return textField(block, 'text') ?? '';
        case 'thinking':
          return `(thinking) ${textField(block, 'thinking') ?? ''}`;
        case 'toolCall':
          return `→ ${textField(block, 'name') ?? 'tool'}(${JSON.stringify(block['arguments'] ?? {})})`;
        case 'image':
          return '[image]';
        default:
          return '';
      }
    })
    .filter((text) => text !== '')
    .join(' ');
}

/** What a message says, in one line. */
export function messagePreview(message: ContextMessage): string {
  switch (message.role) {
    case 'user':
    case 'assistant':
    case 'custom':
      return oneLine(contentText(message['content']) || textField(message, 'errorMessage') || '');
    case 'toolResult':
      return oneLine(`${textField(message, 'toolName') ?? 'tool'}: ${contentText(message['content'])}`);
    case 'bashExecution':
      return oneLine(`$ ${textField(message, 'command') ?? ''}`);
    case 'pythonExecution':
      return oneLine(`>>> ${textField(message, 'code') ?? ''}`);
    case 'compactionSummary':
    case 'branchSummary':
      return oneLine(textField(message, 'summary') ?? '');
    case 'fileMention': {
      const files = message['files'];
      const paths = Array.isArray(files) ? files.map((file: unknown) => textField(file, 'path') ?? '?') : [];
      return oneLine(`@ ${paths.join(', ')}`);
    }
    default:
      return oneLine(JSON.stringify(message));
  }
}

/** The role of a message entry's message. */
export function messageRoleOf(entry: SessionEntry): string | undefined {
  return entry.type === 'message' ? textField(entry['message'], 'role') : undefined;
}

/** What an entry is, in one line (its type is shown beside it); `withRole` starts messages with their role. */
export function entryPreview(entry: SessionEntry, withRole = true): string {
  switch (entry.type) {
    case 'message': {
      const message = entry['message'];
      if (!isRecord(message)) return '';
      const role = textField(message, 'role') ?? '?';
      const text = messagePreview({ ...message, role });
      return withRole ? `${role}: ${text}` : text;
    }
    case 'compaction':
      return oneLine(
        `${formatCount(numberField(entry, 'tokensBefore'))} tokens before · ${textField(entry, 'summary') ?? ''}`,
      );
    case 'branch_summary':
      return oneLine(`from ${textField(entry, 'fromId') ?? '?'} · ${textField(entry, 'summary') ?? ''}`);
    case 'model_change':
      return (
        textField(entry, 'model') ??
        `${textField(entry, 'provider') ?? ''}/${textField(entry, 'modelId') ?? ''}`
      );
    case 'thinking_level_change':
      return textField(entry, 'thinkingLevel') ?? '';
    case 'label':
      return `${textField(entry, 'targetId') ?? '?'} ← ${textField(entry, 'label') ?? '(cleared)'}`;
    case 'session_info':
      return textField(entry, 'name') ?? '';
    case 'custom':
    case 'custom_message':
      return oneLine(`${textField(entry, 'customType') ?? ''} ${contentText(entry['content'])}`);
    default:
      return '';
  }
}

function numberField(value: SessionEntry, field: string): number | null {
  const found = value[field];
  return typeof found === 'number' ? found : null;
}

/** 12,345 (or — when unknown). */
export function formatCount(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : Math.round(value).toLocaleString('en-US');
}

/** 850 ms, 12.3 s, 4 min 5 s. */
export function formatDuration(milliseconds: number | null | undefined): string {
  if (milliseconds === null || milliseconds === undefined) return '—';
  if (milliseconds < 1000) return `${Math.round(milliseconds)} ms`;
  const seconds = milliseconds / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes} min ${Math.round(seconds - minutes * 60)} s`;
}

/** An ISO timestamp as `2025-11-20 23:33:50` (UTC), or the text itself when it is not a date. */
export function formatTime(iso: string | null | undefined): string {
  if (iso === null || iso === undefined) return '—';
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})/.exec(iso);
  return match === null ? iso : `${match[1]} ${match[2]}`;
}

/** $0.1234 for costs. */
export function formatCost(value: number): string {
  return value === 0 ? '$0' : `$${value.toFixed(value < 1 ? 4 : 2)}`;
}
