// The shape of a Claude Code transcript line: what a `user` or `assistant` line must hold
// (checked before any line of a batch is mapped, so a malformed one is refused, naming it), the
// accessors the converter reads lines through, and how a line is recognised as Claude Code's.
import { z } from 'zod';
import type { JsonObject } from '../json-lines';
import { SessionFileError } from '../session-file-error';
import { objectField, type TranscriptRecord } from './transcript-lines';

const contentBlockSchema = z.looseObject({ type: z.string() });
const messageLineSchema = z.looseObject({
  uuid: z.string(),
  parentUuid: z.string().nullable().optional(),
  message: z.looseObject({
    content: z.union([z.string(), z.array(contentBlockSchema)]),
  }),
});
const toolUseSchema = z.looseObject({ id: z.string(), name: z.string(), input: z.unknown() });
const toolResultSchema = z.looseObject({
  tool_use_id: z.string(),
  content: z.union([z.string(), z.array(contentBlockSchema)]).optional(),
});

/** Whether a line belongs to a subagent's conversation rather than the main one. */
export function isSidechain(value: JsonObject): boolean {
  return value.isSidechain === true;
}

/** The API message a `user` or `assistant` line carries. */
export function messageOf(value: JsonObject): JsonObject | undefined {
  return objectField(value, 'message');
}

/** The content blocks of a line's message (none when the content is a plain string). */
export function blocksOf(value: JsonObject): JsonObject[] {
  const content = messageOf(value)?.content;
  return Array.isArray(content) ? (content as JsonObject[]) : [];
}

function describeIssue(error: z.ZodError): string {
  const [issue] = error.issues;
  const at = issue && issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)';
  return `${at}: ${issue?.message ?? 'invalid'}`;
}

/** Throws SessionFileError when a `user` or `assistant` line, or one of its tool blocks, is malformed. */
export function checkClaudeCodeLine(record: TranscriptRecord): void {
  const value = record.value;
  if (value === undefined || (value.type !== 'user' && value.type !== 'assistant')) return;
  const line = messageLineSchema.safeParse(value);
  const fail = (reason: string): never => {
    throw new SessionFileError({ line: record.line, code: 'schema-violation', reason });
  };
  if (!line.success) return fail(`a Claude Code ${value.type} line: ${describeIssue(line.error)}`);
  for (const [index, block] of blocksOf(value).entries()) {
    const schema =
      block.type === 'tool_use' ? toolUseSchema : block.type === 'tool_result' ? toolResultSchema : undefined;
    const checked = schema?.safeParse(block);
    if (checked !== undefined && !checked.success) {
      fail(
        `a Claude Code ${String(block.type)} block: message.content.${index}.${describeIssue(checked.error)}`,
      );
    }
  }
}

/** Whether a line looks like Claude Code's (for detecting the format). */
export function looksLikeClaudeCode(value: JsonObject): boolean {
  const type = value.type;
  if (type === 'user' || type === 'assistant' || type === 'system') {
    return typeof value.uuid === 'string' && Object.hasOwn(value, 'parentUuid');
  }
  if (type === 'summary') return typeof value.leafUuid === 'string';
  if (type === 'file-history-snapshot') return typeof value.messageId === 'string';
  return false;
}
