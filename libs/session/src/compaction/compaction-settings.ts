// Compaction settings (reference §4, seed "Settings and defaults"). Plain data here; the engine
// validates the configured values with zod before they reach the domain.

export interface CompactionSettings {
  readonly enabled: boolean;
  /** Tokens left free for the model's answer; compaction triggers above window − reserve. */
  readonly reserveTokens: number;
  /** Estimated tokens of recent conversation kept verbatim after a compaction. */
  readonly keepRecentTokens: number;
  /** Whether a threshold compaction is followed by a synthetic "continue" prompt. */
  readonly autoContinue: boolean;
}

export const DEFAULT_COMPACTION_SETTINGS: CompactionSettings = {
  enabled: true,
  reserveTokens: 16384,
  keepRecentTokens: 20000,
  autoContinue: true,
};
