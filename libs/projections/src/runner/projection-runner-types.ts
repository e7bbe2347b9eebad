// The runner's options, reports and errors (see projection-runner.ts).
import type { CheckpointStore, EventStore } from '@strata/event-store';
import type { Projection, ProjectionDurability } from './projection';
import type { InvalidEventReport } from './projected-event';

/** Stored at the start of a rebuild; any checkpoint below zero means "from the start". */
export const RESET_CHECKPOINT = -1n;
export const DEFAULT_CHECKPOINT_INTERVAL = 500;
export const DEFAULT_PROGRESS_INTERVAL = 10_000;

/** The CheckpointStore key of a projection. */
export function checkpointIdOf(projectionName: string): string {
  return `projections/${projectionName}`;
}

export interface RunnerProgress {
  /** Events delivered since this start. */
  readonly eventsRead: number;
  readonly position: bigint;
  /** The last session event when the runner started (null: none). */
  readonly targetPosition: bigint | null;
}

export interface ProjectionRunnerOptions {
  readonly store: EventStore;
  readonly checkpoints: CheckpointStore;
  readonly projections: readonly Projection[];
  /** While catching up, flush and store checkpoints every this many events (live: after each). 500 by default. */
  readonly checkpointInterval?: number;
  /** `onProgress` is called every this many events while catching up. 10,000 by default. */
  readonly progressInterval?: number;
  readonly onProgress?: (progress: RunnerProgress) => void;
  readonly onInvalidEvent?: (report: InvalidEventReport) => void;
  /** Called once when a projection or the store fails; the runner is then `failed`. */
  readonly onError?: (error: unknown) => void;
}

export type RunnerState = 'idle' | 'catching_up' | 'live' | 'stopped' | 'failed';

export interface ProjectionStatus {
  readonly name: string;
  readonly durability: ProjectionDurability;
  /** The last position it has processed (null: nothing yet). */
  readonly checkpoint: bigint | null;
  /** Events applied to it since the runner was created or it was rebuilt. */
  readonly eventsApplied: number;
}

export interface ProjectionRunnerStatus {
  readonly state: RunnerState;
  /** Every session event at or below it has been applied and flushed. */
  readonly appliedPosition: bigint | null;
  readonly eventsRead: number;
  readonly invalidEvents: number;
  readonly projections: readonly ProjectionStatus[];
  readonly failure: string | null;
}

export interface ProjectionLag {
  /** The last session event the runner has read (applied or not yet flushed). */
  readonly lastSeenPosition: bigint | null;
  readonly appliedPosition: bigint | null;
  /** The last session event in the store. */
  readonly headPosition: bigint | null;
  /** headPosition − appliedPosition (0 when caught up); a count of events on SQLite and in memory. */
  readonly positionsBehind: bigint;
}

export interface RebuildReport {
  readonly projections: readonly string[];
  readonly eventsRead: number;
  readonly eventsApplied: number;
  readonly invalidEvents: number;
  readonly position: bigint | null;
}

export class UnknownProjectionError extends Error {
  override readonly name = 'UnknownProjectionError';

  constructor(
    readonly projectionName: string,
    readonly known: readonly string[],
  ) {
    super(`no projection is called '${projectionName}' (known: ${known.join(', ')})`);
  }
}

export class ProjectionRunnerStoppedError extends Error {
  override readonly name = 'ProjectionRunnerStoppedError';

  constructor() {
    super('the projection runner stopped');
  }
}
