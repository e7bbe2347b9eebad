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

/**
 * A model change comes in two shapes: pi's (`provider` and `modelId`, what pi 0.73.1 writes in
 * every version) and oh-my-pi's (`model: "provider/modelId"`, with an optional `role`). A v1
 * entry migrated by Strata carries both. `modelChangeTarget` reads either.
 */
export const modelChangeEntrySchema = z.looseObject({
  type: z.literal('model_change'),
  ...entryBase,
  /** oh-my-pi: "provider/modelId". */
  model: z.string().optional(),
  /** oh-my-pi: the role the model is for (`default` when absent). */
  role: z.string().optional(),
  /** pi: the provider of the model. */
  provider: z.string().optional(),
  /** pi: the model's id at its provider. */
  modelId: z.string().optional(),
});

/**
 * Who made a compaction or branch summary: an extension (pi writes `fromHook: true`, Strata's
 * hooks `fromExtension: true`) or the agent itself. An extension's `details` are its own JSON;
 * the agent's are file lists (`fileListsOf` reads them; entry-rules.ts checks their shape).
 */
const summaryOrigin = {
  /** Extension-defined data when made by an extension, else the file lists. */
  details: z.unknown().optional(),
  /** pi: made by an extension. */
  fromHook: z.boolean().optional(),
  /** oh-my-pi and Strata: made by an extension (a hook). */
  fromExtension: z.boolean().optional(),
};

export const compactionEntrySchema = z.looseObject({
  type: z.literal('compaction'),
  ...entryBase,
  summary: z.string(),
  shortSummary: z.string().optional(),
  firstKeptEntryId: z.string().min(1),
  tokensBefore: z.number().nonnegative(),
  preserveData: z.record(z.string(), z.unknown()).optional(),
  ...summaryOrigin,
});

export const branchSummaryEntrySchema = z.looseObject({
  type: z.literal('branch_summary'),
  ...entryBase,
  fromId: z.string(),
  summary: z.string(),
  ...summaryOrigin,
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

/** Whether an extension made this compaction or branch summary (`fromHook` or `fromExtension`). */
export function isFromExtension(entry: CompactionEntry | BranchSummaryEntry): boolean {
  return entry.fromHook === true || entry.fromExtension === true;
}

/**
 * The file lists of a compaction or branch summary the agent made; undefined for an extension's
 * (whose `details` are its own) and for entries without lists.
 */
export function fileListsOf(entry: CompactionEntry | BranchSummaryEntry): FileLists | undefined {
  if (isFromExtension(entry) || entry.details === undefined) return undefined;
  const lists = fileListsSchema.safeParse(entry.details);
  return lists.success ? lists.data : undefined;
}

/**
 * The model a model change selects and its role, from either shape (oh-my-pi's `model` wins when
 * both are there; they agree on migrated v1 entries). `piShapeOnly` reads the entry as pi 0.73.1
 * does: `provider` and `modelId` only, every change for the default role. Undefined when the
 * entry names no model in the shape read.
 */
export function modelChangeTarget(
  entry: ModelChangeEntry,
  piShapeOnly = false,
): { readonly role: string; readonly model: string } | undefined {
  const piModel =
    entry.provider !== undefined && entry.modelId !== undefined
      ? `${entry.provider}/${entry.modelId}`
      : undefined;
  if (piShapeOnly) return piModel === undefined ? undefined : { role: 'default', model: piModel };
  const model = entry.model ?? piModel;
  return model === undefined ? undefined : { role: entry.role ?? 'default', model };
}

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
