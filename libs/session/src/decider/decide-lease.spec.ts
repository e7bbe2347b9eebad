import { DeciderSpecification } from '@strata/testing';
import { sessionDecider } from './decide';
import { appended, startedChain, user } from './decider-spec-data';
import { SessionDomainError } from './session-domain-error';
import type { SessionEvent } from './session-events';

const spec = DeciderSpecification.for(sessionDecider);

const T0 = 1_700_000_000_000;
const taken = (sequence: number, holder: string, at: number, ttlMs = 30_000): SessionEvent => ({
  type: 'LeaseTaken',
  data: { sequence, token: `${sequence}.nonce-${holder}`, holder, ttlMs, takenAt: at, expiresAt: at + ttlMs },
});
const hostA = [...startedChain, taken(1, 'host-a', T0)];

const refused =
  (reason: string, check: (details: Readonly<Record<string, unknown>>) => boolean = () => true) =>
  (error: SessionDomainError) =>
    error.code === 'conflict' && error.details.reason === reason && check(error.details);

describe('given a session nobody holds', () => {
  it('when a writer takes the lease, then it gets lease 1 until now + ttl', () => {
    spec
      .given(startedChain)
      .when({ type: 'TakeLease', data: { holder: 'host-a', ttlMs: 30_000, now: T0, nonce: 'nonce-host-a' } })
      .then([taken(1, 'host-a', T0)]);
  });

  it('when a writer asks for a ttl outside 1 s to 10 min, then it is invalid', () => {
    for (const ttlMs of [999, 600_001, 1.5]) {
      spec
        .given(startedChain)
        .when({ type: 'TakeLease', data: { holder: 'host-a', ttlMs, now: T0, nonce: 'nonce-host-a' } })
        .thenThrows(SessionDomainError, (error) => error.code === 'invalid');
    }
  });

  it('when a write bears no token, then it passes', () => {
    spec
      .given(startedChain)
      .when({ type: 'CheckLease', data: { now: T0 } })
      .thenNothingHappened();
  });

  it('when a write bears a token of no lease, then it is refused as stale', () => {
    spec
      .given(startedChain)
      .when({ type: 'CheckLease', data: { leaseToken: '1.forged-token', now: T0 } })
      .thenThrows(SessionDomainError, refused('lease_stale'));
  });
});

describe('given host A holds lease 1 for 30 s', () => {
  it('when host B takes it, then it is refused naming the holder and expiry', () => {
    spec
      .given(hostA)
      .when({
        type: 'TakeLease',
        data: { holder: 'host-b', ttlMs: 30_000, now: T0 + 1_000, nonce: 'nonce-host-b' },
      })
      .thenThrows(
        SessionDomainError,
        refused(
          'lease_held',
          (details) =>
            details.holder === 'host-a' && details.expiresAt === new Date(T0 + 30_000).toISOString(),
        ),
      );
  });

  it('when a write bears no token, then it is refused as held', () => {
    spec
      .given(hostA)
      .when({ type: 'CheckLease', data: { now: T0 + 1_000 } })
      .thenThrows(SessionDomainError, refused('lease_held'));
  });

  it("when a write bears host A's token, then it passes", () => {
    spec
      .given(hostA)
      .when({ type: 'CheckLease', data: { leaseToken: '1.nonce-host-a', now: T0 + 29_999 } })
      .thenNothingHappened();
  });

  it('when host A renews with its token, then the expiry moves from now', () => {
    spec
      .given(hostA)
      .when({
        type: 'TakeLease',
        data: { token: '1.nonce-host-a', ttlMs: 60_000, now: T0 + 20_000, nonce: 'unused-n' },
      })
      .then([
        {
          type: 'LeaseRenewed',
          data: { sequence: 1, ttlMs: 60_000, renewedAt: T0 + 20_000, expiresAt: T0 + 80_000 },
        },
      ]);
  });

  it('when host A releases it, then it is released, and a second release records nothing', () => {
    const released: SessionEvent = { type: 'LeaseReleased', data: { sequence: 1, releasedAt: T0 + 5_000 } };
    spec
      .given(hostA)
      .when({ type: 'ReleaseLease', data: { token: '1.nonce-host-a', now: T0 + 5_000 } })
      .then([released]);
    spec
      .given([...hostA, released])
      .when({ type: 'ReleaseLease', data: { token: '1.nonce-host-a', now: T0 + 6_000 } })
      .thenNothingHappened();
  });

  it('when the lease has expired and host B takes it, then the expiry is recorded and B gets lease 2', () => {
    const now = T0 + 30_000;
    spec
      .given(hostA)
      .when({ type: 'TakeLease', data: { holder: 'host-b', ttlMs: 10_000, now, nonce: 'nonce-host-b' } })
      .then([
        {
          type: 'LeaseExpired',
          data: { sequence: 1, holder: 'host-a', expiresAt: T0 + 30_000, recordedAt: now },
        },
        taken(2, 'host-b', now, 10_000),
      ]);
  });

  it('when the lease has expired, then a write without a token passes and one with the old token is stale', () => {
    spec
      .given(hostA)
      .when({ type: 'CheckLease', data: { now: T0 + 30_000 } })
      .thenNothingHappened();
    spec
      .given(hostA)
      .when({ type: 'CheckLease', data: { leaseToken: '1.nonce-host-a', now: T0 + 30_000 } })
      .thenThrows(SessionDomainError, refused('lease_stale'));
  });
});

describe('given host B took lease 2 after host A’s lease 1 expired', () => {
  const later = T0 + 40_000;
  const history = [...hostA, appended(user('u3', 't2')), taken(2, 'host-b', later)];

  it("when host A's write arrives late with token 1, then it is refused (fencing)", () => {
    spec
      .given(history)
      .when({ type: 'CheckLease', data: { leaseToken: '1.nonce-host-a', now: later + 1 } })
      .thenThrows(
        SessionDomainError,
        refused('lease_held', (details) => details.holder === 'host-b'),
      );
  });

  it('when host A tries to renew lease 1, then it is refused', () => {
    spec
      .given(history)
      .when({
        type: 'TakeLease',
        data: { token: '1.nonce-host-a', ttlMs: 30_000, now: later + 1, nonce: 'unused-n' },
      })
      .thenThrows(SessionDomainError, refused('lease_held'));
  });

  it('when host A releases lease 1, then it is refused and lease 2 stays', () => {
    spec
      .given(history)
      .when({ type: 'ReleaseLease', data: { token: '1.nonce-host-a', now: later + 1 } })
      .thenThrows(SessionDomainError, refused('lease_held'));
  });

  it('when host B releases lease 2 and host A writes with token 1, then it is still stale', () => {
    spec
      .given([...history, { type: 'LeaseReleased', data: { sequence: 2, releasedAt: later + 5 } }])
      .when({ type: 'CheckLease', data: { leaseToken: '1.nonce-host-a', now: later + 10 } })
      .thenThrows(SessionDomainError, refused('lease_stale'));
  });
});
