// Agent message roles (reference §1.5). `branchSummary` and `compactionSummary` exist only at
// run time: they are built from entries and never stored inside a `message` entry.
import { z } from 'zod';
import {
  assistantContentSchema,
  imageContentSchema,
  textContentSchema,
  toolResultContentSchema,
  userContentSchema,
} from './content';

const timestampMs = z.number();

export const usageSchema = z.looseObject({
  input: z.number(),
  output: z.number(),
  cacheRead: z.number(),
  cacheWrite: z.number(),
  totalTokens: z.number().optional(),
  cost: z
    .looseObject({
      input: z.number().optional(),
      output: z.number().optional(),
      cacheRead: z.number().optional(),
      cacheWrite: z.number().optional(),
      total: z.number().optional(),
    })
    .optional(),
});

export const stopReasonSchema = z.enum(['stop', 'length', 'toolUse', 'error', 'aborted']);

export const userMessageSchema = z.looseObject({
  role: z.literal('user'),
  content: userContentSchema,
  synthetic: z.boolean().optional(),
  timestamp: timestampMs,
});

export const assistantMessageSchema = z.looseObject({
  role: z.literal('assistant'),
  content: assistantContentSchema,
  api: z.string().optional(),
  provider: z.string(),
  model: z.string(),
  usage: usageSchema.optional(),
  stopReason: stopReasonSchema,
  errorMessage: z.string().optional(),
  timestamp: timestampMs,
  duration: z.number().optional(),
  ttft: z.number().optional(),
});

export const toolResultMessageSchema = z.looseObject({
  role: z.literal('toolResult'),
  toolCallId: z.string(),
  toolName: z.string(),
  content: toolResultContentSchema,
  details: z.unknown().optional(),
  isError: z.boolean(),
  prunedAt: z.number().optional(),
  timestamp: timestampMs,
});

export const bashExecutionMessageSchema = z.looseObject({
  role: z.literal('bashExecution'),
  command: z.string(),
  output: z.string(),
  exitCode: z.number().nullable().optional(),
  cancelled: z.boolean(),
  truncated: z.boolean(),
  /** pi: where the full output of a truncated run was saved. */
  fullOutputPath: z.string().optional(),
  meta: z.unknown().optional(),
  excludeFromContext: z.boolean().optional(),
  timestamp: timestampMs,
});

export const pythonExecutionMessageSchema = z.looseObject({
  role: z.literal('pythonExecution'),
  code: z.string(),
  output: z.string(),
  exitCode: z.number().nullable().optional(),
  cancelled: z.boolean(),
  truncated: z.boolean(),
  meta: z.unknown().optional(),
  excludeFromContext: z.boolean().optional(),
  timestamp: timestampMs,
});

const customContentSchema = z.union([z.string(), z.array(z.union([textContentSchema, imageContentSchema]))]);

export const customMessageSchema = z.looseObject({
  role: z.literal('custom'),
  customType: z.string(),
  content: customContentSchema,
  display: z.boolean(),
  details: z.unknown().optional(),
  timestamp: timestampMs,
});

/** The v2 name of the `custom` role; parsing v1/v2 files renames it (see the file format). */
export const legacyHookMessageSchema = customMessageSchema.extend({ role: z.literal('hookMessage') });

export const fileMentionMessageSchema = z.looseObject({
  role: z.literal('fileMention'),
  files: z.array(
    z.looseObject({
      path: z.string(),
      content: z.string(),
      lineCount: z.number().optional(),
      byteSize: z.number().optional(),
      skippedReason: z.string().optional(),
      image: imageContentSchema.optional(),
    }),
  ),
  timestamp: timestampMs,
});

/** Every role a `message` entry may store. */
export const storedMessageSchema = z.discriminatedUnion('role', [
  userMessageSchema,
  assistantMessageSchema,
  toolResultMessageSchema,
  bashExecutionMessageSchema,
  pythonExecutionMessageSchema,
  customMessageSchema,
  fileMentionMessageSchema,
]);

export type Usage = z.infer<typeof usageSchema>;
export type StopReason = z.infer<typeof stopReasonSchema>;
export type UserMessage = z.infer<typeof userMessageSchema>;
export type AssistantMessage = z.infer<typeof assistantMessageSchema>;
export type ToolResultMessage = z.infer<typeof toolResultMessageSchema>;
export type BashExecutionMessage = z.infer<typeof bashExecutionMessageSchema>;
export type PythonExecutionMessage = z.infer<typeof pythonExecutionMessageSchema>;
export type CustomMessage = z.infer<typeof customMessageSchema>;
export type FileMentionMessage = z.infer<typeof fileMentionMessageSchema>;
export type StoredMessage = z.infer<typeof storedMessageSchema>;

/** Built from a `branch_summary` entry when the context is assembled. */
export interface BranchSummaryMessage {
  readonly role: 'branchSummary';
  readonly summary: string;
  readonly fromId: string;
  readonly timestamp: number;
}

/** Built from the latest `compaction` entry on the path when the context is assembled. */
export interface CompactionSummaryMessage {
  readonly role: 'compactionSummary';
  readonly summary: string;
  readonly shortSummary?: string;
  readonly tokensBefore: number;
  readonly timestamp: number;
}

/** A message of the agent's context: a stored role or one of the two run-time roles. */
export type AgentMessage = StoredMessage | BranchSummaryMessage | CompactionSummaryMessage;
export type AgentRole = AgentMessage['role'];
