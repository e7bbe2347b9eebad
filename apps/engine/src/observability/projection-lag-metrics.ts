// How far the projections are behind the store, read when /metrics is scraped. A global position
// counts events on SQLite and in memory, so the gap between the applied position and the last
// session event is a number of events there: `strata_projection_lag_events`. On EventStoreDB a
// position is the commit position, an offset in the node's transaction log, so the same gap is
// a number of log bytes: `strata_projection_lag_bytes`, and no `…_events` gauge (the subscription
// knows positions, not how many events lie between two of them). Each engine has one of the two.
import type { EventStore } from '@strata/event-store';
import { EsdbEventStore, InMemoryEventStore, SqliteEventStore } from '@strata/event-store';
import type { Registry } from 'prom-client';
import { GaugeFamily } from './metric-families';

/** The kind of store an engine runs on; `other` for a store an embedder supplies. */
export type StoreKind = 'sqlite' | 'memory' | 'esdb' | 'other';

export function storeKindOf(store: EventStore): StoreKind {
  if (store instanceof SqliteEventStore) return 'sqlite';
  if (store instanceof InMemoryEventStore) return 'memory';
  if (store instanceof EsdbEventStore) return 'esdb';
  return 'other';
}

/** The names of the lag gauges: what /metrics shows a caller without a valid key, with the live gauge. */
export const PROJECTION_LAG_EVENTS = 'strata_projection_lag_events';
export const PROJECTION_LAG_BYTES = 'strata_projection_lag_bytes';
export const PROJECTION_LAG_POSITIONS = 'strata_projection_lag_positions';

/** The gauge's name and help for a store whose positions are in `kind`'s unit. */
function lagGaugeOf(kind: StoreKind): { readonly name: string; readonly help: string } {
  switch (kind) {
    case 'sqlite':
    case 'memory':
      return {
        name: PROJECTION_LAG_EVENTS,
        help: 'Events the projections have not applied yet: the last session event’s global position minus the position every projection has applied (SQLite and memory stores, whose positions count events).',
      };
    case 'esdb':
      return {
        name: PROJECTION_LAG_BYTES,
        help: 'Bytes of the EventStoreDB transaction log between the position every projection has applied and the last session event (commit positions are log offsets, not event counts).',
      };
    case 'other':
      return {
        name: PROJECTION_LAG_POSITIONS,
        help: 'The last session event’s global position minus the position every projection has applied, in the unit of the store’s positions.',
      };
    default: {
      const unhandled: never = kind;
      throw new Error(`unhandled store kind ${JSON.stringify(unhandled)}`);
    }
  }
}

export class ProjectionLagMetrics {
  /** The name of this engine's lag gauge. */
  readonly lagName: string;
  private readonly lag: GaugeFamily;
  private readonly applied: GaugeFamily;

  constructor(registry: Registry, kind: StoreKind) {
    const gauge = lagGaugeOf(kind);
    this.lagName = gauge.name;
    this.lag = new GaugeFamily(registry, gauge);
    this.applied = new GaugeFamily(registry, {
      name: 'strata_projection_applied_position',
      help: 'The global position every projection has applied and flushed (a commit position on EventStoreDB); -1 before the first.',
    });
  }

  /** The lag as the runner measured it (`positionsBehind`, `appliedPosition`). */
  set(positionsBehind: bigint, appliedPosition: bigint | null): void {
    this.lag.set({}, Number(positionsBehind));
    this.applied.set({}, Number(appliedPosition ?? -1n));
  }

  /** The store could not be asked: the lag is unknown (NaN) until the next scrape. */
  unknown(): void {
    this.lag.set({}, NaN);
  }
}
