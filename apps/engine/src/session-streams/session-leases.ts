// The writer lease as the write slices meet it: the check each write decides before its own
// command (in the same batch, so it holds at the revision the write is appended at), and the
// same check on a read of the current state for the writes that start an attempt (compact,
// navigate), whose events are written later by the attempt runner.
import { decide, type CheckLease } from '@strata/session';
import type { SessionStreams } from './session-streams.service';

/** The check of a write bearing `leaseToken` (or none) at `now`. */
export function leaseCheckOf(leaseToken: string | undefined, now: number): CheckLease {
  return { type: 'CheckLease', data: { now, ...(leaseToken !== undefined ? { leaseToken } : {}) } };
}

/**
 * Refuses (`SessionDomainError`, `lease_held` or `lease_stale`) a write the lease in force does
 * not allow, on the session's current state.
 */
export async function requireLeaseHolder(
  streams: SessionStreams,
  sessionId: string,
  leaseToken: string | undefined,
  now: number,
): Promise<void> {
  decide(leaseCheckOf(leaseToken, now), await streams.state(sessionId));
}
