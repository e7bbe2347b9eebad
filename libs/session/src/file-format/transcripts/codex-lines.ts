// The shape of a Codex CLI rollout line: the envelope types (`{timestamp, type, payload}`) and
// the bare items of older rollouts, the response item a line holds, the check of an item's shape
// (made before any line of a batch is mapped, so a malformed one is refused, naming it), and how
// a line is recognised as Codex's.
import { z } from 'zod';
import type { JsonObject } from '../json-lines';
import { isJsonObject } from '../json-lines';
import { SessionFileError } from '../session-file-error';
import { objectField, stringField, type TranscriptRecord } from './transcript-lines';

const ENVELOPE_TYPES = new Set(['session_meta', 'response_item', 'turn_context', 'event_msg', 'compacted']);
const RESPONSE_ITEM_TYPES = new Set([
  'message',
  'reasoning',
  'function_call',
  'function_call_output',
  'custom_tool_call',
  'custom_tool_call_output',
  'local_shell_call',
  'web_search_call',
]);
/** Items the model produces in a response: held together as one answer. */
const ANSWER_ITEMS = new Set([
  'reasoning',
  'function_call',
  'custom_tool_call',
  'local_shell_call',
  'web_search_call',
]);

const itemSchemas: Readonly<Record<string, z.ZodType>> = {
  message: z.looseObject({ role: z.string(), content: z.union([z.string(), z.array(z.looseObject({}))]) }),
  function_call: z.looseObject({ name: z.string(), call_id: z.string(), arguments: z.string().optional() }),
  custom_tool_call: z.looseObject({ name: z.string(), call_id: z.string() }),
  function_call_output: z.looseObject({ call_id: z.string() }),
  custom_tool_call_output: z.looseObject({ call_id: z.string() }),
};

/** The response item a line holds (the payload, or the line itself in an old rollout). */
export function itemOf(value: JsonObject | undefined): JsonObject | undefined {
  if (value === undefined) return undefined;
  if (value.type === 'response_item') return objectField(value, 'payload');
  return typeof value.type === 'string' &&
    RESPONSE_ITEM_TYPES.has(value.type) &&
    !Object.hasOwn(value, 'payload')
    ? value
    : undefined;
}

/** Whether an item of this type is part of the model's answer (held with the rest of it). */
export function isAnswerItem(item: JsonObject, itemType: string): boolean {
  return ANSWER_ITEMS.has(itemType) || (itemType === 'message' && stringField(item, 'role') === 'assistant');
}

/** Throws SessionFileError when an envelope has no payload or a response item is malformed. */
export function checkCodexLine(record: TranscriptRecord): void {
  const value = record.value;
  if (value === undefined) return;
  const fail = (reason: string): never => {
    throw new SessionFileError({ line: record.line, code: 'schema-violation', reason });
  };
  if (typeof value.type === 'string' && ENVELOPE_TYPES.has(value.type) && !isJsonObject(value.payload)) {
    fail(`a Codex ${value.type} line needs a payload object`);
  }
  const item = itemOf(value);
  const schema = item === undefined ? undefined : itemSchemas[String(item.type)];
  const checked = schema?.safeParse(item);
  if (checked !== undefined && !checked.success) {
    const [issue] = checked.error.issues;
    const at = issue && issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)';
    fail(`a Codex ${String(item?.type)} item: ${at}: ${issue?.message ?? 'invalid'}`);
  }
}

/** Whether a line looks like a Codex rollout's (for detecting the format). */
export function looksLikeCodex(value: JsonObject): boolean {
  if (typeof value.type === 'string' && ENVELOPE_TYPES.has(value.type)) return isJsonObject(value.payload);
  if (value.record_type === 'state') return true;
  return itemOf(value) !== undefined && !Object.hasOwn(value, 'uuid');
}
