// What a check of a signed log found, in words (one line each, no line break).
import { describeErasure } from '../anchors/integrity-findings';
import type { StoreLogFinding, NewestCheckpoint } from './verify-store-log';

const short = (hash: string): string => `${hash.slice(0, 12)}…`;

/** The finding in one line. */
export function describeLogFinding(finding: StoreLogFinding, label = 'the signed log'): string {
  switch (finding.kind) {
    case 'log_unreadable':
      return `${label}: position ${finding.position} holds no entry that can be read (${finding.reason})`;
    case 'log_gap':
      return `${label}: positions ${BigInt(finding.after) + 1n}–${BigInt(finding.next) - 1n} are missing (entries deleted between ${finding.after} and ${finding.next})`;
    case 'log_chain_broken':
      return `${label}: the entry at position ${finding.position} names ${short(finding.previousHash)} as the entry before it, but that entry hashes to ${short(finding.expected)} (an entry was edited, removed or inserted)`;
    case 'log_entry_refused':
      return `${label}: the entry at position ${finding.position} is refused: ${
        finding.reason === 'bad_hash'
          ? 'its content does not hash to its hash (edited)'
          : finding.reason === 'bad_signature'
            ? 'its signature does not verify (forged or altered)'
            : `it is signed by key ${finding.keyId}, which is not among the trusted keys`
      }`;
    case 'checkpoint_incomplete':
      return `${label}: the checkpoint at position ${finding.position} has ${finding.found} of its ${finding.parts} parts`;
    case 'erasure_unsigned':
      return `${describeErasure(finding.record)}: no signed erasure in the log stands for this record (forged, or its stream or time edited)`;
    case 'erasure_altered':
      return `${describeErasure(finding.record)}: the record differs from the signed erasure at position ${finding.position} in ${finding.fields.join(', ')}`;
    case 'erasure_record_missing':
      return `${finding.entry.streamId}: the erasure signed at position ${finding.entry.position} (at ${finding.entry.erasedAt} by ${finding.entry.actor}) was carried out, but the store holds no record of it (the record was deleted)`;
    case 'erased_unsigned':
      return `${finding.streamId}: the checkpoint at position ${finding.checkpoint} saw this stream erased, but no signed erasure stands for it (its events were removed behind the engine's back)`;
    case 'log_truncated':
      return `${label}: the store's log ends at position ${finding.storeEnd}, but the exported copy holds entries up to ${finding.exportedEnd} (the log was cut at its end)`;
    case 'log_diverged':
      return `${label}: at position ${finding.position} the store's log holds ${finding.storeHash === '' ? 'no chained entry' : `entry ${short(finding.storeHash)}`}, the exported copy ${short(finding.exportedHash)} (the log was rewritten)`;
    default: {
      const unhandled: never = finding;
      return String(unhandled);
    }
  }
}

/** The newest checkpoint in one line: where, when, how old, and what the store holds past it. */
export function describeNewestCheckpoint(checkpoint: NewestCheckpoint | undefined): string {
  if (checkpoint === undefined)
    return 'the signed log holds no checkpoint yet: nothing attests the store as a whole';
  const counts =
    checkpoint.streams !== null && checkpoint.events !== null
      ? ` (${checkpoint.streams} stream${checkpoint.streams === 1 ? '' : 's'}, ${checkpoint.events} event${checkpoint.events === '1' ? '' : 's'})`
      : '';
  const after =
    checkpoint.eventsAfter === null
      ? ''
      : checkpoint.eventsAfter === 0
        ? '; nothing was written after it'
        : `; ${checkpoint.eventsAfter} event${checkpoint.eventsAfter === 1 ? '' : 's'} written after it are not covered yet`;
  return `newest checkpoint: position ${checkpoint.position}, signed ${checkpoint.time}, ${checkpoint.ageSeconds} s old, covers the store up to position ${checkpoint.storePosition}${counts}${after}`;
}
