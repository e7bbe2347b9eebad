// @strata/tokenizer: TokenCounter implementations for the port defined in @strata/session.
export * from './o200k-token-counter';
export * from './create-token-counter';
export * from './counting-slices';
export * from './prepared-token-counter';
export { MERGE_WINDOW_BYTES, WINDOW_LOOKAHEAD_BYTES, O200kTextCount } from './o200k-text-count';
export type { MergeMeter } from './byte-pair-merge';
