// Checking a signed log as it is read, in position order (decision 0018): that positions follow one
// another with no gap, that each chained entry's hash is its content's, names the entry before it
// and is signed by a trusted key; that a checkpoint's parts are all there; and what the log
// attests: every anchor and every head a checkpoint recorded (handed on as anchors to match against
// the store's chains, so that a session deleted whole is named), the signed erasures, and the
// newest checkpoint. Anchors signed before the log was chained are handed on as before, each
// checked on its own signature.
import type { Anchor, AnchorPublicKey } from '../anchors/anchor';
import type { AnchorCandidate } from '../anchors/anchor-index';
import {
  checkLogEntry,
  LOG_GENESIS_HASH,
  type CheckpointLogEntry,
  type ErasureLogEntry,
  type LogEntry,
} from './log-entry';
import type { LoggedItem } from './log-storage';

export type LogFinding =
  /** A place of the log holds no entry that can be read. */
  | { readonly kind: 'log_unreadable'; readonly position: string; readonly reason: string }
  /** Positions are missing between two entries (entries deleted from the middle). */
  | { readonly kind: 'log_gap'; readonly after: string; readonly next: string }
  /** An entry does not name the hash of the entry before it (an entry before was edited, removed or inserted). */
  | {
      readonly kind: 'log_chain_broken';
      readonly position: string;
      readonly previousHash: string;
      readonly expected: string;
    }
  /** An entry's hash is not its content's, or no trusted key signed it. */
  | {
      readonly kind: 'log_entry_refused';
      readonly position: string;
      readonly reason: 'bad_hash' | 'bad_signature' | 'unknown_key';
      readonly keyId: string;
    }
  /** A checkpoint written in parts lacks some. */
  | {
      readonly kind: 'checkpoint_incomplete';
      readonly position: string;
      readonly parts: number;
      readonly found: number;
    };

/** The newest complete checkpoint of a log. */
export interface CheckpointSummary {
  readonly position: string;
  readonly time: string;
  readonly storePosition: string;
  readonly streams: number | null;
  readonly events: string | null;
}

/** The origin that names a log entry in findings (`<label> #<position>`). */
export function logOrigin(label: string, position: string): string {
  return `${label} #${position}`;
}

/** An anchor stands for a checkpoint's head: the checkpoint's time and key, signed with it. */
function headAnchor(
  checkpoint: CheckpointLogEntry,
  head: CheckpointLogEntry['heads'][number],
): Anchor | undefined {
  if (head.headHash === null) return undefined;
  return {
    stream: head.stream,
    revision: head.revision,
    headHash: head.headHash,
    time: checkpoint.time,
    keyId: checkpoint.keyId,
    signature: checkpoint.signature,
    position: checkpoint.position,
  };
}

export class LogCheck {
  readonly findings: LogFinding[] = [];
  /** Chained entries read, and anchors signed before the log was chained. */
  entries = 0;
  legacyAnchors = 0;
  /** The last position read (0 for an empty log). */
  lastPosition = 0n;
  lastHash = LOG_GENESIS_HASH;
  newestCheckpoint: CheckpointSummary | undefined;
  /** Signed erasures, in log order. */
  readonly erasures: ErasureLogEntry[] = [];
  /** Streams the newest checkpoints say were erased (stream → the checkpoint's position). */
  readonly erasedByCheckpoint = new Map<string, string>();
  /** Streams any checkpoint saw erased. */
  readonly erasedEver = new Set<string>();
  private pendingParts: CheckpointLogEntry[] = [];
  private chained = false;

  constructor(
    private readonly keys: ReadonlyMap<string, AnchorPublicKey>,
    /** Names entries in findings and origins: `store log`, or an exported file's name. */
    readonly label: string,
    /** Whether positions must start at 1 and follow with no gap (a whole log; not an export after a position). */
    private readonly whole = true,
  ) {}

  /** Checks one item and returns the anchors it hands on to match against chains. */
  add(item: LoggedItem): AnchorCandidate[] {
    if (item.source === 'unreadable') {
      this.closeParts();
      this.findings.push({ kind: 'log_unreadable', position: item.position, reason: item.reason });
      this.advance(BigInt(item.position), undefined);
      return [];
    }
    const origin = logOrigin(this.label, item.entry.position);
    if (item.source === 'legacy') {
      this.legacyAnchors += 1;
      this.advance(BigInt(item.entry.position), undefined);
      return [{ origin, anchor: item.entry }];
    }
    return this.addChained(item.entry, origin);
  }

  /** Ends the check (a checkpoint whose last parts never came is named). */
  finish(): void {
    this.closeParts();
  }

  private addChained(entry: LogEntry, origin: string): AnchorCandidate[] {
    this.entries += 1;
    const position = BigInt(entry.position);
    // a partial log's first entry (an export after a position) has nothing before it to check against
    const first = !this.whole && this.lastPosition === 0n;
    const expectedPrevious = this.chained ? this.lastHash : LOG_GENESIS_HASH;
    const continuous = position === this.lastPosition + 1n;
    this.advance(position, entry.hash);
    if (!first && continuous && entry.previousHash !== expectedPrevious) {
      this.findings.push({
        kind: 'log_chain_broken',
        position: entry.position,
        previousHash: entry.previousHash,
        expected: expectedPrevious,
      });
    }
    this.chained = true;
    const check = checkLogEntry(entry, this.keys);
    if (check !== 'valid') {
      this.closeParts();
      this.findings.push({
        kind: 'log_entry_refused',
        position: entry.position,
        reason: check,
        keyId: entry.keyId,
      });
      return [];
    }
    switch (entry.kind) {
      case 'anchor':
        return [{ origin, anchor: entry }];
      case 'erasure':
        this.closeParts();
        this.erasures.push(entry);
        return [];
      case 'checkpoint':
        return this.addCheckpointPart(entry, origin);
      default: {
        const unhandled: never = entry;
        return unhandled;
      }
    }
  }

  private addCheckpointPart(entry: CheckpointLogEntry, origin: string): AnchorCandidate[] {
    if (entry.part === 1) this.closeParts();
    const previous = this.pendingParts[this.pendingParts.length - 1];
    if (entry.part !== 1 && (previous === undefined || previous.part !== entry.part - 1)) {
      this.closeParts();
      this.findings.push({
        kind: 'checkpoint_incomplete',
        position: entry.position,
        parts: entry.parts,
        found: 1,
      });
      return [];
    }
    this.pendingParts.push(entry);
    const candidates: AnchorCandidate[] = [];
    for (const head of entry.heads) {
      const anchor = headAnchor(entry, head);
      if (anchor !== undefined) candidates.push({ origin, anchor, trusted: true });
    }
    if (entry.part === entry.parts) {
      const first = this.pendingParts[0]!;
      for (const part of this.pendingParts) {
        for (const stream of part.erased) {
          this.erasedByCheckpoint.set(stream, part.position);
          this.erasedEver.add(stream);
        }
      }
      for (const part of this.pendingParts)
        for (const head of part.heads) this.erasedByCheckpoint.delete(head.stream);
      this.newestCheckpoint = {
        position: first.position,
        time: entry.time,
        storePosition: entry.storePosition,
        streams: entry.streams,
        events: entry.events,
      };
      this.pendingParts = [];
    }
    return candidates;
  }

  private closeParts(): void {
    const first = this.pendingParts[0];
    if (first === undefined) return;
    this.findings.push({
      kind: 'checkpoint_incomplete',
      position: first.position,
      parts: first.parts,
      found: this.pendingParts.length,
    });
    this.pendingParts = [];
  }

  private advance(position: bigint, hash: string | undefined): void {
    const expected = this.lastPosition + 1n;
    if (position !== expected && (this.whole || this.lastPosition !== 0n)) {
      this.findings.push({ kind: 'log_gap', after: this.lastPosition.toString(), next: position.toString() });
    }
    this.lastPosition = position;
    if (hash !== undefined) this.lastHash = hash;
  }
}
