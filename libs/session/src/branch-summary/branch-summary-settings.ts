// Branch-summary settings (reference §6, seed "Settings and defaults"). Plain data here; the
// engine validates the configured values with zod before they reach the domain.

export interface BranchSummarySettings {
  /** Whether navigation offers to summarise the abandoned branch. */
  readonly enabled: boolean;
  /** Tokens of the model's window kept free; the rest is the summariser's input budget. */
  readonly reserveTokens: number;
}

export const DEFAULT_BRANCH_SUMMARY_SETTINGS: BranchSummarySettings = {
  enabled: false,
  reserveTokens: 16384,
};
