// What an entry or a header must satisfy besides its shape, wherever one comes in (an append,
// an imported file, the engine's own entries through the decider): ids and every reference to
// an entry follow the identifier rule, timestamps are ISO 8601 date-times, and the figures the
// read models add up are bounded, and a compaction or branch summary made by the agent (not by
// an extension) holds file lists as its details. Events read back from a store are not held to these rules
// (what was recorded stays readable); the read models bound the figures they compute with.
import type { z } from 'zod';
import {
  fileListsSchema,
  isFromExtension,
  type BranchSummaryEntry,
  type CompactionEntry,
  type SessionEntry,
  type SessionHeader,
} from './entries';
import { identifierProblem } from './identifiers';
import { isIsoDateTime, isoDateTimeSchema } from './timestamps';
import { boundedUsageSchema, isBoundedUsage, MAX_TOKEN_FIGURE, tokenFigureSchema } from './usage-bounds';

export interface FieldProblem {
  readonly path: readonly (string | number)[];
  readonly message: string;
}

function identifierAt(path: readonly (string | number)[], value: string, problems: FieldProblem[]): void {
  const problem = identifierProblem(value);
  if (problem !== undefined) problems.push({ path, message: problem });
}

function schemaAt(
  path: readonly (string | number)[],
  schema: z.ZodType,
  value: unknown,
  problems: FieldProblem[],
): void {
  const result = schema.safeParse(value);
  if (result.success) return;
  for (const issue of result.error.issues) {
    problems.push({
      path: [...path, ...issue.path.map((key) => (typeof key === 'symbol' ? String(key) : key))],
      message: issue.message,
    });
  }
}

/** An extension's details are its own JSON; the agent's are file lists. */
function detailsAt(entry: CompactionEntry | BranchSummaryEntry, problems: FieldProblem[]): void {
  if (entry.details !== undefined && !isFromExtension(entry)) {
    schemaAt(['details'], fileListsSchema, entry.details, problems);
  }
}

/** The problems of an entry whose shape is already valid; empty when it follows every rule. */
export function entryFieldProblems(entry: SessionEntry): FieldProblem[] {
  const problems: FieldProblem[] = [];
  identifierAt(['id'], entry.id, problems);
  if (entry.parentId !== null) identifierAt(['parentId'], entry.parentId, problems);
  if (!isIsoDateTime(entry.timestamp)) schemaAt(['timestamp'], isoDateTimeSchema, entry.timestamp, problems);
  switch (entry.type) {
    case 'message': {
      const { message } = entry;
      if (message.role === 'assistant' && message.usage !== undefined && !isBoundedUsage(message.usage)) {
        schemaAt(['message', 'usage'], boundedUsageSchema, message.usage, problems);
      }
      break;
    }
    case 'compaction':
      identifierAt(['firstKeptEntryId'], entry.firstKeptEntryId, problems);
      if (!(entry.tokensBefore >= 0 && entry.tokensBefore <= MAX_TOKEN_FIGURE)) {
        schemaAt(['tokensBefore'], tokenFigureSchema, entry.tokensBefore, problems);
      }
      detailsAt(entry, problems);
      break;
    case 'branch_summary':
      identifierAt(['fromId'], entry.fromId, problems);
      detailsAt(entry, problems);
      break;
    case 'label':
      identifierAt(['targetId'], entry.targetId, problems);
      break;
    case 'thinking_level_change':
    case 'model_change':
    case 'custom':
    case 'custom_message':
    case 'session_info':
    case 'ttsr_injection':
    case 'session_init':
    case 'mode_change':
      break;
    default: {
      const unhandled: never = entry;
      throw new Error(`unhandled entry type ${JSON.stringify(unhandled)}`);
    }
  }
  return problems;
}

/** The problems of a header whose shape is already valid. */
export function headerFieldProblems(header: SessionHeader): FieldProblem[] {
  const problems: FieldProblem[] = [];
  identifierAt(['id'], header.id, problems);
  schemaAt(['timestamp'], isoDateTimeSchema, header.timestamp, problems);
  return problems;
}

/** One line naming the first problem: `id: must not be empty`. */
export function describeFieldProblem(problem: FieldProblem): string {
  return `${problem.path.join('.')}: ${problem.message}`;
}
