// A whole store verified with its signed log (decision 0018): the log is read once, checked as it
// is read, and every anchor and checkpoint head it attests is indexed (with the anchors of an
// exported file, when one is given); then every stream's chain is held against them, with the
// signed erasures standing for erased streams. `strata verify --all` and the tests use it.
import type { EventFilter, EventStore } from '@strata/event-store';
import type { AnchorPublicKey } from '../anchors/anchor';
import { AnchorIndex, type AnchorCandidate } from '../anchors/anchor-index';
import { anchorLogIfAny } from '../anchors/anchor-log';
import {
  verifyStoreIntegrity,
  type StoreIntegrity,
  type StoreIntegrityProgress,
} from '../anchors/verify-integrity';
import { LogCheck } from './log-check';
import { finishStoreLog, storeLogCandidates, type StoreLogIntegrity } from './verify-store-log';

export interface LoggedStoreVerification {
  readonly streams: StoreIntegrity;
  readonly log: StoreLogIntegrity;
  /** Whether nothing was found, in the streams or in the log. */
  readonly ok: boolean;
}

export interface StoreVerificationOptions {
  readonly keys: ReadonlyMap<string, AnchorPublicKey>;
  /** Anchors kept outside the store (an exported file) to match besides the store's own. */
  readonly exported?: AsyncIterable<AnchorCandidate>;
  readonly filter?: EventFilter;
  readonly onProgress?: (progress: StoreIntegrityProgress) => void;
  readonly now?: Date;
}

async function* concatenated<Item>(...sources: readonly AsyncIterable<Item>[]): AsyncGenerator<Item> {
  for (const source of sources) yield* source;
}

export async function verifyStoreWithLog(
  store: EventStore,
  options: StoreVerificationOptions,
): Promise<LoggedStoreVerification> {
  const { keys, exported, filter, onProgress, now } = options;
  const log = anchorLogIfAny(store);
  const check = new LogCheck(keys, 'anchor log');
  // anchors kept outside first, so that a finding names the exported anchor before the store's own
  const sources: AsyncIterable<AnchorCandidate>[] = [];
  if (exported !== undefined) sources.push(exported);
  if (log !== undefined) sources.push(storeLogCandidates(log, check));
  const prefixes = filter?.streamPrefixes ?? [];
  const inScope = (streamId: string): boolean =>
    prefixes.length === 0 || prefixes.some((prefix) => streamId.startsWith(prefix));
  const index = await AnchorIndex.build(concatenated(...sources), keys, inScope);
  try {
    const logIntegrity = await finishStoreLog(store, check, now);
    const streams = await verifyStoreIntegrity(store, {
      anchors: index,
      ...(filter !== undefined ? { filter } : {}),
      ...(onProgress !== undefined ? { onProgress } : {}),
      ...(logIntegrity.signedErasures !== undefined ? { signedErasures: logIntegrity.signedErasures } : {}),
    });
    return { streams, log: logIntegrity, ok: streams.ok && logIntegrity.findings.length === 0 };
  } finally {
    index.close();
  }
}
