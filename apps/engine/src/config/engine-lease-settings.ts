// The settings of an engine's liveness lease (decision 0017), from the environment:
// `STRATA_ENGINE_LEASE_MS`, how long a renewal holds, and `STRATA_ENGINE_LEASE_RENEW_MS`, how
// often the engine renews it and looks for the expired leases of others (shorter than the lease).
import { z } from 'zod';
import { integerVariable } from './environment-values';

export interface EngineLeaseSettings {
  /** How long a renewal holds the lease. */
  readonly durationMs: number;
  /** How often the lease is renewed, and how often the engine looks for expired ones. */
  readonly renewEveryMs: number;
}

export const DEFAULT_ENGINE_LEASE: EngineLeaseSettings = { durationMs: 60_000, renewEveryMs: 10_000 };

const leaseEnvironmentSchema = z
  .object({
    STRATA_ENGINE_LEASE_MS: integerVariable({
      min: 100,
      max: 86_400_000,
      default: DEFAULT_ENGINE_LEASE.durationMs,
    }),
    STRATA_ENGINE_LEASE_RENEW_MS: integerVariable({
      min: 50,
      max: 3_600_000,
      default: DEFAULT_ENGINE_LEASE.renewEveryMs,
    }),
  })
  .refine((values) => values.STRATA_ENGINE_LEASE_RENEW_MS < values.STRATA_ENGINE_LEASE_MS, {
    path: ['STRATA_ENGINE_LEASE_RENEW_MS'],
    message: 'must be shorter than STRATA_ENGINE_LEASE_MS',
  });

/** The lease settings the environment gives, and a problem per variable it gives wrongly (each naming it). */
export function engineLeaseSettingsOf(environment: Readonly<Record<string, string | undefined>>): {
  readonly settings: EngineLeaseSettings;
  readonly problems: readonly string[];
} {
  const parsed = leaseEnvironmentSchema.safeParse(environment);
  if (parsed.success) {
    return {
      settings: {
        durationMs: parsed.data.STRATA_ENGINE_LEASE_MS,
        renewEveryMs: parsed.data.STRATA_ENGINE_LEASE_RENEW_MS,
      },
      problems: [],
    };
  }
  return {
    settings: DEFAULT_ENGINE_LEASE,
    problems: parsed.error.issues.map((issue) => `${issue.path.map(String).join('.')}: ${issue.message}`),
  };
}
