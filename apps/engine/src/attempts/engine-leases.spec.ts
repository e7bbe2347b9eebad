import {
  decideTakeover,
  leaseRenewal,
  leaseTakeover,
  parseEngineLeaseEvent,
  type EngineLeaseRecord,
} from './engine-leases';

const T0 = Date.parse('2026-12-06T09:00:00.000Z');

function at(event: EngineLeaseRecord['event'], revision: bigint): EngineLeaseRecord {
  return { event, revision };
}

describe('an engine that never held a lease', () => {
  it('is left alone: its attempts are not taken over', () => {
    expect(decideTakeover(undefined, T0)).toEqual({ kind: 'unknown' });
  });
});

describe('an engine whose last renewal has not expired', () => {
  const renewed = at(leaseRenewal('engine-a', T0, 5_000), 3n);

  it('is alive until the renewal expires', () => {
    expect(decideTakeover(renewed, T0 + 4_999)).toEqual({ kind: 'alive', expiresAt: T0 + 5_000 });
  });
});

describe('an engine whose last renewal expired', () => {
  const renewed = at(leaseRenewal('engine-a', T0, 5_000), 3n);

  it('is claimed at the revision of that renewal, naming when it expired', () => {
    expect(decideTakeover(renewed, T0 + 5_000)).toEqual({
      kind: 'claim',
      expectedRevision: 3n,
      leaseExpiredAt: '2026-12-06T09:00:05.000Z',
    });
  });
});

describe('an engine whose attempts were taken over', () => {
  const taken = at(leaseTakeover('engine-a', 'engine-b', '2026-12-06T09:00:05.000Z', T0 + 6_000), 4n);

  it('is not claimed again: the engine that took over keeps them', () => {
    expect(decideTakeover(taken, T0 + 60_000)).toEqual({
      kind: 'taken',
      by: 'engine-b',
      leaseExpiredAt: '2026-12-06T09:00:05.000Z',
    });
  });

  it('is alive again once it renewed after the takeover', () => {
    const back = at(leaseRenewal('engine-a', T0 + 61_000, 5_000), 5n);
    expect(decideTakeover(back, T0 + 62_000)).toEqual({ kind: 'alive', expiresAt: T0 + 66_000 });
  });
});

describe('a lease event read back from the store', () => {
  it('is parsed when it is one', () => {
    const event = leaseRenewal('engine-a', T0, 1_000);
    expect(parseEngineLeaseEvent(event)).toEqual(event);
  });

  it('is refused when its fields are not those of a lease event', () => {
    expect(parseEngineLeaseEvent({ type: 'EngineLeaseRenewed', data: { engineId: 'a' } })).toBeUndefined();
    expect(parseEngineLeaseEvent({ type: 'SomethingElse', data: {} })).toBeUndefined();
  });
});
