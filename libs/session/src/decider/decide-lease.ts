// Decisions about the session's writer lease (lease-events.ts). Time comes in the command
// (`now`), so the decisions stay pure: a lease is in force while `now` is before its
// `expiresAt` and it is not released. Refusals are conflicts with a finer reason:
// `lease_held` (another writer's lease is in force) and `lease_stale` (the token given is not
// the lease in force: a later one was taken, or it was released or expired).
import type { CheckLease, ReleaseLease, TakeLease } from './session-commands';
import { conflict, invalid } from './session-domain-error';
import type { LeaseEvent } from './session-events';
import type { ActiveSessionState, SessionLease } from './session-state';

/** The shortest and longest lease a writer may take or renew, in milliseconds. */
export const MIN_LEASE_TTL_MS = 1_000;
export const MAX_LEASE_TTL_MS = 600_000;

/** The lease in force at `now`; undefined when none is. */
export function leaseInForce(state: ActiveSessionState, now: number): SessionLease | undefined {
  const { lease } = state;
  return lease !== null && !lease.released && now < lease.expiresAt ? lease : undefined;
}

function held(lease: SessionLease): Error {
  return conflict(`the session's writer lease is held by ${lease.holder}`, {
    reason: 'lease_held',
    holder: lease.holder,
    expiresAt: new Date(lease.expiresAt).toISOString(),
  });
}

function stale(token: string): Error {
  return conflict('the lease token is not the lease in force (a later one was taken, or it ended)', {
    reason: 'lease_stale',
    leaseToken: token,
  });
}

function requireTtl(ttlMs: number): void {
  if (!Number.isSafeInteger(ttlMs) || ttlMs < MIN_LEASE_TTL_MS || ttlMs > MAX_LEASE_TTL_MS) {
    throw invalid(`ttlMs must be an integer from ${MIN_LEASE_TTL_MS} to ${MAX_LEASE_TTL_MS}`, { ttlMs });
  }
}

export function takeLease(command: TakeLease, state: ActiveSessionState): LeaseEvent[] {
  const { holder, ttlMs, now, nonce, token } = command.data;
  requireTtl(ttlMs);
  const inForce = leaseInForce(state, now);
  if (token !== undefined) {
    if (inForce?.token === token) {
      const { sequence } = inForce;
      return [{ type: 'LeaseRenewed', data: { sequence, ttlMs, renewedAt: now, expiresAt: now + ttlMs } }];
    }
    throw inForce !== undefined ? held(inForce) : stale(token);
  }
  if (inForce !== undefined) throw held(inForce);
  if (holder === undefined || holder.length === 0) throw invalid('a lease is taken for a holder');
  if (!/^[A-Za-z0-9_-]{8,128}$/.test(nonce)) throw invalid('a lease nonce is 8 to 128 URL-safe characters');
  const { lease } = state;
  const expired: LeaseEvent[] =
    lease !== null && !lease.released
      ? [
          {
            type: 'LeaseExpired',
            data: {
              sequence: lease.sequence,
              holder: lease.holder,
              expiresAt: lease.expiresAt,
              recordedAt: now,
            },
          },
        ]
      : [];
  const sequence = (lease?.sequence ?? 0) + 1;
  return [
    ...expired,
    {
      type: 'LeaseTaken',
      data: { sequence, token: `${sequence}.${nonce}`, holder, ttlMs, takenAt: now, expiresAt: now + ttlMs },
    },
  ];
}

export function releaseLease(command: ReleaseLease, state: ActiveSessionState): LeaseEvent[] {
  const { token, now } = command.data;
  const { lease } = state;
  if (lease === null || lease.token !== token) {
    const inForce = leaseInForce(state, now);
    throw inForce !== undefined ? held(inForce) : stale(token);
  }
  if (lease.released) return [];
  return [{ type: 'LeaseReleased', data: { sequence: lease.sequence, releasedAt: now } }];
}

export function checkLease(command: CheckLease, state: ActiveSessionState): [] {
  const { leaseToken, now } = command.data;
  const inForce = leaseInForce(state, now);
  if (inForce !== undefined) {
    if (leaseToken === inForce.token) return [];
    throw held(inForce);
  }
  if (leaseToken !== undefined) throw stale(leaseToken);
  return [];
}
