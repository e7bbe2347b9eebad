// The engine's settings as zod schemas (a trust boundary: configuration files and the
// environment, and per-session overrides read back from the store). Defaults are the
// reference's (seed "Settings and defaults"), taken from the pure domain's constants.
import {
  DEFAULT_BRANCH_SUMMARY_SETTINGS,
  DEFAULT_COMPACTION_SETTINGS,
  DEFAULT_PRUNING_SETTINGS,
} from '@strata/session';
import { z } from 'zod';

const tokens = z.number().int().nonnegative();
const positiveTokens = z.number().int().positive();
const milliseconds = z.number().int().positive();
const environmentVariableName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be the name of an environment variable');

const httpUrl = z.url({ protocol: /^https?$/ });

/** Where a remote summariser is and how it is called (the `remote` candidate and `compaction.remoteEndpoint`). */
const remoteSummarizerFields = {
  url: httpUrl,
  /** A header sent with every request; its value is read from the environment variable `valueEnv`. */
  authHeader: z.strictObject({ name: z.string().min(1), valueEnv: environmentVariableName }).optional(),
  /** Per-request timeout; five minutes by default. */
  timeoutMs: milliseconds.optional(),
};

const compactionFields = {
  enabled: z.boolean(),
  reserveTokens: tokens,
  keepRecentTokens: positiveTokens,
  autoContinue: z.boolean(),
};
const branchSummaryFields = { enabled: z.boolean(), reserveTokens: tokens };
const pruningFields = {
  protectTokens: tokens,
  minimumSavings: tokens,
  protectedTools: z.array(z.string().min(1)),
};

export const compactionSettingsSchema = z.strictObject({
  enabled: compactionFields.enabled.default(DEFAULT_COMPACTION_SETTINGS.enabled),
  reserveTokens: compactionFields.reserveTokens.default(DEFAULT_COMPACTION_SETTINGS.reserveTokens),
  keepRecentTokens: compactionFields.keepRecentTokens.default(DEFAULT_COMPACTION_SETTINGS.keepRecentTokens),
  autoContinue: compactionFields.autoContinue.default(DEFAULT_COMPACTION_SETTINGS.autoContinue),
  /**
   * POST `{systemPrompt, prompt}` → `{summary, shortSummary?, model?, usage?}`; tried before the
   * configured candidates. Its URL, or `{url, authHeader?, timeoutMs?}` as a `remote` candidate has.
   */
  remoteEndpoint: z.union([httpUrl, z.strictObject(remoteSummarizerFields)]).optional(),
});

export const branchSummarySettingsSchema = z.strictObject({
  enabled: branchSummaryFields.enabled.default(DEFAULT_BRANCH_SUMMARY_SETTINGS.enabled),
  reserveTokens: branchSummaryFields.reserveTokens.default(DEFAULT_BRANCH_SUMMARY_SETTINGS.reserveTokens),
});

export const pruningSettingsSchema = z.strictObject({
  protectTokens: pruningFields.protectTokens.default(DEFAULT_PRUNING_SETTINGS.protectTokens),
  minimumSavings: pruningFields.minimumSavings.default(DEFAULT_PRUNING_SETTINGS.minimumSavings),
  protectedTools: pruningFields.protectedTools.default([...DEFAULT_PRUNING_SETTINGS.protectedTools]),
});

const offlineCandidateSchema = z.strictObject({ provider: z.literal('offline') });

const remoteCandidateSchema = z.strictObject({ provider: z.literal('remote'), ...remoteSummarizerFields });

const anthropicCandidateSchema = z.strictObject({
  provider: z.literal('anthropic'),
  model: z.string().min(1),
  baseUrl: z.url({ protocol: /^https?$/ }).optional(),
  apiKeyEnv: environmentVariableName.default('ANTHROPIC_API_KEY'),
  timeoutMs: milliseconds.optional(),
});

const openAiCompatibleCandidateSchema = z.strictObject({
  provider: z.literal('openai-compatible'),
  model: z.string().min(1),
  /** The API root including `/v1`; a local model server's address works. */
  baseUrl: z.url({ protocol: /^https?$/ }).optional(),
  apiKeyEnv: environmentVariableName.default('OPENAI_API_KEY'),
  timeoutMs: milliseconds.optional(),
  maxTokensField: z.enum(['max_tokens', 'max_completion_tokens']).optional(),
});

export const summarizerCandidateSchema = z.discriminatedUnion('provider', [
  offlineCandidateSchema,
  remoteCandidateSchema,
  anthropicCandidateSchema,
  openAiCompatibleCandidateSchema,
]);

export const retrySettingsSchema = z.strictObject({
  enabled: z.boolean().optional(),
  maxRetries: z.number().int().nonnegative().optional(),
  baseDelayMs: z.number().int().nonnegative().optional(),
  maxDelayMs: z.number().int().nonnegative().optional(),
});

export const summarizerSettingsSchema = z.strictObject({
  /** Tried in order; the offline extractive summariser by default (no network). */
  candidates: z
    .array(summarizerCandidateSchema)
    .min(1)
    .default([{ provider: 'offline' }]),
  retry: retrySettingsSchema.prefault({}),
});

export const modelSettingsSchema = z.strictObject({
  /** The context window of a model without an override (the reference's fallback, 128,000). */
  defaultContextWindow: positiveTokens.default(128000),
  /** Context windows by model ("provider/modelId" or the bare model id). */
  contextWindows: z.record(z.string().min(1), positiveTokens).default({}),
});

export const engineSettingsSchema = z.strictObject({
  compaction: compactionSettingsSchema.prefault({}),
  branchSummary: branchSummarySettingsSchema.prefault({}),
  pruning: pruningSettingsSchema.prefault({}),
  summarizer: summarizerSettingsSchema.prefault({}),
  models: modelSettingsSchema.prefault({}),
  /** The token counter of estimates: js-tiktoken o200k_base, or the reference's chars/4. */
  tokenizer: z.enum(['o200k', 'chars4']).default('o200k'),
  /**
   * Retention by tenant: sessions whose last event is older than this many days are erased
   * (audited, as `strata erase` does). None by default.
   */
  retention: z
    .record(z.string().min(1).max(128), z.number().int().min(1).max(36_500))
    .refine((rules) => Object.keys(rules).length <= 1_000, 'at most 1,000 tenants')
    .default({}),
});

export type EngineSettings = z.infer<typeof engineSettingsSchema>;
/** What a settings file may hold: every field optional. */
export type EngineSettingsInput = z.input<typeof engineSettingsSchema>;
export type SummarizerCandidateSettings = z.infer<typeof summarizerCandidateSchema>;

/**
 * What one session may override (stored as a `custom` entry, see session-settings.ts). The
 * summariser candidates, the remote endpoint and the model windows stay engine-wide: a session's
 * content never chooses where its text is sent.
 */
export const sessionSettingsOverrideSchema = z.strictObject({
  compaction: z.strictObject(compactionFields).partial().optional(),
  branchSummary: z.strictObject(branchSummaryFields).partial().optional(),
  pruning: z.strictObject(pruningFields).partial().optional(),
});

export type SessionSettingsOverride = z.infer<typeof sessionSettingsOverrideSchema>;
