// Tool-output pruning settings (reference §7, `DEFAULT_PRUNE_CONFIG`).

export interface PruningSettings {
  /** Tokens of the newest tool output that are never pruned. */
  readonly protectTokens: number;
  /** Pruning happens only when it would save at least this many tokens. */
  readonly minimumSavings: number;
  /** Tools whose results are never pruned. */
  readonly protectedTools: readonly string[];
}

export const DEFAULT_PRUNING_SETTINGS: PruningSettings = {
  protectTokens: 40000,
  minimumSavings: 20000,
  protectedTools: ['skill', 'read'],
};
