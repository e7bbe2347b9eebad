// Session entries (reference §1.3–1.4) and the session header (§1.2). One entry is one event
// of the session stream; its data is the whole entry, so pi v3 files round-trip losslessly.
// Each comes in two strengths: the `recorded…` schemas give the shape, which is all an event
// read back from a store must have; `sessionEntrySchema` and `sessionHeaderSchema` add the
// rules of entry-rules.ts that every new entry and header must follow.
import { z } from 'zod';
import { entryFieldProblems, headerFieldProblems, type FieldProblem } from './entry-rules';
import { customMessageSchema, storedMessageSchema } from './messages';

export const CURRENT_SESSION_VERSION = 3;

export const thinkingLevels = ['off', 'minimal', 'low', 'medium', 'high', 'xhigh'] as const;
export const thinkingLevelSchema = z.enum(thinkingLevels);
export type ThinkingLevel = z.infer<typeof thinkingLevelSchema>;

export const recordedSessionHeaderSchema = z.looseObject({
  type: z.literal('session'),
  version: z.number().int().positive().optional(),
  id: z.string().min(1),
  timestamp: z.string(),
  cwd: z.string(),
  title: z.string().optional(),
  parentSession: z.string().optional(),
});
export type SessionHeader = z.infer<typeof recordedSessionHeaderSchema>;

const entryBase = {
  id: z.string().min(1),
  parentId: z.string().min(1).nullable(),
  timestamp: z.string(),
};

export const fileListsSchema = z.looseObject({
  readFiles: z.array(z.string()),
  modifiedFiles: z.array(z.string()),
});
export type FileLists = z.infer<typeof fileListsSchema>;

export const messageEntrySchema = z.looseObject({
  type: z.literal('message'),
  ...entryBase,
  message: storedMessageSchema,
});

export const thinkingLevelChangeEntrySchema = z.looseObject({
  type: z.literal('thinking_level_change'),
  ...entryBase,
  thinkingLevel: thinkingLevelSchema,
});

export const modelChangeEntrySchema = z.looseObject({
  type: z.literal('model_change'),
  ...entryBase,
  /** "provider/modelId"; absent on unmigrated v1 entries, which carry provider and modelId. */
  model: z.string().optional(),
  role: z.string().optional(),
});

export const compactionEntrySchema = z.looseObject({
  type: z.literal('compaction'),
  ...entryBase,
  summary: z.string(),
  shortSummary: z.string().optional(),
  firstKeptEntryId: z.string().min(1),
  tokensBefore: z.number().nonnegative(),
  details: fileListsSchema.optional(),
  preserveData: z.record(z.string(), z.unknown()).optional(),
  fromExtension: z.boolean().optional(),
});

export const branchSummaryEntrySchema = z.looseObject({
  type: z.literal('branch_summary'),
  ...entryBase,
  fromId: z.string(),
  summary: z.string(),
  details: fileListsSchema.optional(),
  fromExtension: z.boolean().optional(),
});

export const customEntrySchema = z.looseObject({
  type: z.literal('custom'),
  ...entryBase,
  customType: z.string(),
  data: z.unknown().optional(),
});

export const customMessageEntrySchema = z.looseObject({
  type: z.literal('custom_message'),
  ...entryBase,
  customType: z.string(),
  content: customMessageSchema.shape.content,
  display: z.boolean(),
  details: z.unknown().optional(),
});

export const labelEntrySchema = z.looseObject({
  type: z.literal('label'),
  ...entryBase,
  targetId: z.string().min(1),
  /** Missing or empty clears the label of `targetId`. */
  label: z.string().optional(),
});

export const sessionInfoEntrySchema = z.looseObject({
  type: z.literal('session_info'),
  ...entryBase,
  name: z.string().optional(),
});

export const ttsrInjectionEntrySchema = z.looseObject({
  type: z.literal('ttsr_injection'),
  ...entryBase,
  injectedRules: z.array(z.string()),
});

export const sessionInitEntrySchema = z.looseObject({
  type: z.literal('session_init'),
  ...entryBase,
  systemPrompt: z.string(),
  task: z.string(),
  tools: z.array(z.string()),
  outputSchema: z.unknown().optional(),
});

export const modeChangeEntrySchema = z.looseObject({
  type: z.literal('mode_change'),
  ...entryBase,
  mode: z.string(),
  data: z.unknown().optional(),
});

export const recordedSessionEntrySchema = z.discriminatedUnion('type', [
  messageEntrySchema,
  thinkingLevelChangeEntrySchema,
  modelChangeEntrySchema,
  compactionEntrySchema,
  branchSummaryEntrySchema,
  customEntrySchema,
  customMessageEntrySchema,
  labelEntrySchema,
  sessionInfoEntrySchema,
  ttsrInjectionEntrySchema,
  sessionInitEntrySchema,
  modeChangeEntrySchema,
]);

export type MessageEntry = z.infer<typeof messageEntrySchema>;
export type ThinkingLevelChangeEntry = z.infer<typeof thinkingLevelChangeEntrySchema>;
export type ModelChangeEntry = z.infer<typeof modelChangeEntrySchema>;
export type CompactionEntry = z.infer<typeof compactionEntrySchema>;
export type BranchSummaryEntry = z.infer<typeof branchSummaryEntrySchema>;
export type CustomEntry = z.infer<typeof customEntrySchema>;
export type CustomMessageEntry = z.infer<typeof customMessageEntrySchema>;
export type LabelEntry = z.infer<typeof labelEntrySchema>;
export type SessionInfoEntry = z.infer<typeof sessionInfoEntrySchema>;
export type TtsrInjectionEntry = z.infer<typeof ttsrInjectionEntrySchema>;
export type SessionInitEntry = z.infer<typeof sessionInitEntrySchema>;
export type ModeChangeEntry = z.infer<typeof modeChangeEntrySchema>;
export type SessionEntry = z.infer<typeof recordedSessionEntrySchema>;
export type SessionEntryType = SessionEntry['type'];

export const sessionEntryTypes: readonly SessionEntryType[] = recordedSessionEntrySchema.options.map(
  (option) => option.shape.type.value,
);

function reportProblems(problems: readonly FieldProblem[], context: z.core.ParsePayload<unknown>): void {
  for (const problem of problems) {
    context.issues.push({
      code: 'custom',
      path: [...problem.path],
      message: problem.message,
      input: context.value,
    });
  }
}

/** A new entry: its shape and the rules of entry-rules.ts (appends, imported files). */
export const sessionEntrySchema = recordedSessionEntrySchema.check((context) =>
  reportProblems(entryFieldProblems(context.value), context),
);

/** A new session header: its shape, an id that follows the identifier rule, an ISO timestamp. */
export const sessionHeaderSchema = recordedSessionHeaderSchema.check((context) =>
  reportProblems(headerFieldProblems(context.value), context),
);
