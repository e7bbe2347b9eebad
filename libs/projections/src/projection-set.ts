// The projections (issue 5's three and the session search of issue 14) wired to the read-model runner: what the engine and `strata replay`
// create. Durable projections keep their documents in the given ProjectionStorage.
import type { EventStore } from '@strata/event-store';
import type { TokenCounter } from '@strata/session';
import { AuditProjection } from './audit/audit-projection';
import { CatalogProjection } from './catalog/catalog-projection';
import { SearchProjection, type SearchProjectionOptions } from './search/search-projection';
import { ContextProjection, type ContextProjectionOptions } from './context/context-projection';
import type { Processor } from '@strata/processing';
import type { ProjectedEvent } from './runner/projected-event';
import type { Projection } from './runner/projection';
import {
  createReadModelRunner,
  type ReadModelRunner,
  type ReadModelRunnerOptions,
} from './runner/read-model-runner';
import type { ProjectionStorage } from './storage/projection-storage';

export const projectionNames = ['context', 'catalog', 'audit', 'search'] as const;
export type ProjectionName = (typeof projectionNames)[number];
/** The projections whose state outlives the process (what `strata replay` rebuilds). */
export const durableProjectionNames: readonly ProjectionName[] = ['catalog', 'audit', 'search'];

export function isProjectionName(value: string): value is ProjectionName {
  return (projectionNames as readonly string[]).includes(value);
}

export interface ProjectionSetOptions {
  readonly store: EventStore;
  readonly storage: ProjectionStorage;
  readonly tokenCounter: TokenCounter;
  /** Which projections the runner drives; all three by default. */
  readonly include?: readonly ProjectionName[];
  readonly context?: Omit<ContextProjectionOptions, 'store' | 'tokenCounter'>;
  /** The search index's write-behind batches (defaults in search-projection.ts). */
  readonly search?: SearchProjectionOptions;
  readonly runner?: Omit<
    ReadModelRunnerOptions,
    'store' | 'checkpoints' | 'parked' | 'projections' | 'processors'
  >;
  /** Other processors of session events on the same subscription (the engine's metrics). */
  readonly processors?: readonly Processor<ProjectedEvent>[];
}

export interface ProjectionSet {
  readonly context: ContextProjection;
  readonly catalog: CatalogProjection;
  readonly audit: AuditProjection;
  readonly search: SearchProjection;
  readonly runner: ReadModelRunner;
}

export function createProjectionSet(options: ProjectionSetOptions): ProjectionSet {
  const context = new ContextProjection({
    ...options.context,
    store: options.store,
    tokenCounter: options.tokenCounter,
    ...(options.storage.tokenCounts !== undefined ? { tokenCounts: options.storage.tokenCounts } : {}),
    ...(options.storage.contextSnapshots !== undefined
      ? { snapshots: options.storage.contextSnapshots }
      : {}),
  });
  const catalog = new CatalogProjection(options.storage.catalog);
  const audit = new AuditProjection(options.storage.audit);
  const search = new SearchProjection(options.storage.search, options.search);
  const byName: Readonly<Record<ProjectionName, Projection>> = { context, catalog, audit, search };
  const included = options.include ?? projectionNames;
  const runner = createReadModelRunner({
    ...options.runner,
    store: options.store,
    checkpoints: options.storage.checkpoints,
    parked: options.storage.parked,
    projections: included.map((name) => byName[name]),
    ...(options.processors !== undefined ? { processors: options.processors } : {}),
  });
  return { context, catalog, audit, search, runner };
}
