// A closed-loop load generator over global fetch: N clients, each sending its next request as
// soon as the previous one answered, until a request budget or a time bound is reached
// (whichever comes first), recording every request's latency and any unexpected status.
import { percentile } from '../harness';

export interface LoadBounds {
  readonly clients: number;
  readonly maxRequests: number;
  readonly maxSeconds: number;
}

/** One request of a client (`index` counts that client's requests); resolves to the HTTP status. */
export type LoadRequest = (client: number, index: number) => Promise<number>;

export interface LoadRun {
  readonly latenciesNs: readonly bigint[];
  readonly wallNs: bigint;
  readonly requests: number;
  readonly failures: number;
  readonly firstFailure: string | null;
}

export async function runLoad(
  request: LoadRequest,
  expectedStatus: number,
  bounds: LoadBounds,
): Promise<LoadRun> {
  const latenciesNs: bigint[] = [];
  let issued = 0;
  let failures = 0;
  let firstFailure: string | null = null;
  const started = process.hrtime.bigint();
  const deadline = started + BigInt(Math.round(bounds.maxSeconds * 1e9));
  const client = async (clientIndex: number): Promise<void> => {
    for (let index = 0; issued < bounds.maxRequests && process.hrtime.bigint() < deadline; index += 1) {
      issued += 1;
      const sent = process.hrtime.bigint();
      let status: number;
      try {
        status = await request(clientIndex, index);
      } catch (error) {
        status = -1;
        firstFailure ??= error instanceof Error ? error.message : String(error);
      }
      latenciesNs.push(process.hrtime.bigint() - sent);
      if (status !== expectedStatus) {
        failures += 1;
        firstFailure ??= `status ${status}`;
      }
    }
  };
  await Promise.all(Array.from({ length: bounds.clients }, (_, index) => client(index)));
  return {
    latenciesNs,
    wallNs: process.hrtime.bigint() - started,
    requests: latenciesNs.length,
    failures,
    firstFailure,
  };
}

/** Latency percentiles in milliseconds. */
export function latencyPercentiles(latenciesNs: readonly bigint[]): {
  p50: number;
  p90: number;
  p99: number;
} {
  const ascending = latenciesNs.map((value) => Number(value) / 1e6).sort((left, right) => left - right);
  const round = (value: number): number => Math.round(value * 1000) / 1000;
  return {
    p50: round(percentile(ascending, 0.5)),
    p90: round(percentile(ascending, 0.9)),
    p99: round(percentile(ascending, 0.99)),
  };
}
