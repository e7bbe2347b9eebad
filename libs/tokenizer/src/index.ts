// @strata/tokenizer: TokenCounter implementations for the port defined in @strata/session.
export * from './o200k-token-counter';
export * from './create-token-counter';
