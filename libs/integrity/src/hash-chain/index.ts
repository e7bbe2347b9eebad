// The integrity chain: sealing events on append, and verifying streams and the whole store.
export { canonicalJson, canonicalJsonParts, canonicalSha256Hex, sha256Hex } from './canonical-json';
export * from './event-seal';
export * from './chained-append';
export * from './verify-chain';
