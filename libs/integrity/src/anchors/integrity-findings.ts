// What a verification found, as data and in words. A stream holds when it has no finding; an
// erased stream holds too, its erasure record standing for its events and their anchors.
import type { ErasureRecord } from '@strata/event-store';
import { describeChainBreak, type ChainBreak } from '../hash-chain/verify-chain';
import type { AnchorReference, RefusedAnchor } from './anchor-index';

export type IntegrityFinding =
  /** The hash chain breaks at an event. */
  | {
      readonly kind: 'chain_broken';
      readonly streamId: string;
      readonly brokenAt: ChainBreak;
      readonly verifiedEvents: number;
    }
  /** The store's own record of the stream's last revision is past the chain's last event. */
  | {
      readonly kind: 'tail_missing';
      readonly streamId: string;
      readonly recordedRevision: bigint;
      readonly chainRevision: bigint | null;
    }
  /** The stream's metadata tells the store to hide or drop events (retention). */
  | { readonly kind: 'retention_metadata'; readonly streamId: string; readonly keys: readonly string[] }
  /** An anchor names a revision the verified chain does not reach (the stream is shorter). */
  | {
      readonly kind: 'anchor_not_reached';
      readonly streamId: string;
      readonly anchor: AnchorReference;
      readonly chainRevision: bigint | null;
      /** Further anchors of the stream not reached either. */
      readonly others: number;
    }
  /** An anchor's head hash is not the chain's hash at its revision (the stream was rewritten). */
  | {
      readonly kind: 'anchor_mismatch';
      readonly streamId: string;
      readonly anchor: AnchorReference;
      readonly chainHash: string;
      readonly others: number;
    };

/** One stream's verification. */
export interface StreamIntegrity {
  readonly streamId: string;
  /** Events whose chain checked out. */
  readonly events: number;
  readonly headRevision: bigint | null;
  readonly headHash: string | null;
  /** Anchors matched by the chain, and those answered by the erasure record. */
  readonly anchorsMatched: number;
  readonly anchorsAnsweredByErasure: number;
  readonly erasure: ErasureRecord | undefined;
  readonly findings: readonly IntegrityFinding[];
}

export interface RefusedAnchors {
  readonly named: readonly RefusedAnchor[];
  readonly total: number;
}

const short = (hash: string): string => `${hash.slice(0, 12)}…`;

function describeAnchor(reference: AnchorReference): string {
  const { anchor } = reference;
  return `anchor ${reference.origin} (revision ${anchor.revision}, head ${short(anchor.headHash)}, signed ${anchor.time} by key ${anchor.keyId})`;
}

function andOthers(others: number): string {
  return others === 0 ? '' : `; ${others} more anchor${others === 1 ? '' : 's'} of this stream likewise`;
}

/** The finding in one line (no line break). */
export function describeFinding(finding: IntegrityFinding): string {
  switch (finding.kind) {
    case 'chain_broken':
      return `${describeChainBreak(finding.streamId, finding.brokenAt)}; ${finding.verifiedEvents} events before it hold`;
    case 'tail_missing': {
      const missing = finding.recordedRevision - (finding.chainRevision ?? -1n);
      const chain =
        finding.chainRevision === null
          ? 'the stream holds no event'
          : `the chain ends at revision ${finding.chainRevision}`;
      return `${finding.streamId}: the store records revision ${finding.recordedRevision} as the stream's last, but ${chain}: the last ${missing} event${missing === 1n ? ' is' : 's are'} missing`;
    }
    case 'retention_metadata':
      return `${finding.streamId}: its stream metadata sets ${finding.keys.join(', ')}, which makes the store hide or drop events`;
    case 'anchor_not_reached': {
      const chain =
        finding.chainRevision === null
          ? 'the stream holds no verified event'
          : `the verified chain ends at revision ${finding.chainRevision}`;
      return `${finding.streamId}: ${describeAnchor(finding.anchor)} is not matched: ${chain} (the stream is shorter than the anchor)${andOthers(finding.others)}`;
    }
    case 'anchor_mismatch':
      return `${finding.streamId}: ${describeAnchor(finding.anchor)} is not matched: the chain's hash at that revision is ${short(finding.chainHash)} (the stream was rewritten)${andOthers(finding.others)}`;
    default: {
      const unhandled: never = finding;
      return String(unhandled);
    }
  }
}

/** A refused anchor in one line. */
export function describeRefusedAnchor(refused: RefusedAnchor): string {
  const what =
    refused.anchor === undefined
      ? `anchor ${refused.origin}`
      : `anchor ${refused.origin} (${refused.anchor.stream}, revision ${refused.anchor.revision}, key ${refused.anchor.keyId})`;
  switch (refused.reason) {
    case 'bad_signature':
      return `${what} refused: its signature does not verify (forged or altered)`;
    case 'unknown_key':
      return `${what} refused: it is signed by a key that is not among the public keys given`;
    case 'invalid':
      return `${what} refused: not an anchor (${refused.detail ?? 'unreadable'})`;
    default: {
      const unhandled: never = refused.reason;
      return String(unhandled);
    }
  }
}

/** `<stream>: erased at <time> by <actor>: <reason>`. */
export function describeErasure(record: ErasureRecord): string {
  return `${record.streamId}: erased at ${record.erasedAt} by ${record.actor}: ${record.reason}`;
}
