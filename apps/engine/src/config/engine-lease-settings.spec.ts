import { engineLeaseSettingsOf } from './engine-lease-settings';

describe('the engine lease settings of the environment', () => {
  it('default to a lease of a minute renewed every ten seconds', () => {
    expect(engineLeaseSettingsOf({})).toEqual({
      settings: { durationMs: 60_000, renewEveryMs: 10_000 },
      problems: [],
    });
  });

  it('are read from STRATA_ENGINE_LEASE_MS and STRATA_ENGINE_LEASE_RENEW_MS', () => {
    expect(
      engineLeaseSettingsOf({ STRATA_ENGINE_LEASE_MS: '3000', STRATA_ENGINE_LEASE_RENEW_MS: '500' }).settings,
    ).toEqual({ durationMs: 3_000, renewEveryMs: 500 });
  });

  it('name the variable that is wrong: a renewal not shorter than the lease, a value not a number', () => {
    expect(
      engineLeaseSettingsOf({ STRATA_ENGINE_LEASE_MS: '1000', STRATA_ENGINE_LEASE_RENEW_MS: '1000' })
        .problems,
    ).toEqual(['STRATA_ENGINE_LEASE_RENEW_MS: must be shorter than STRATA_ENGINE_LEASE_MS']);
    expect(engineLeaseSettingsOf({ STRATA_ENGINE_LEASE_MS: 'soon' }).problems).toEqual([
      "STRATA_ENGINE_LEASE_MS: must be an integer from 100 to 86400000, not 'soon'",
    ]);
  });
});
