// Injection tokens of the saga runner.

/** The `CheckpointStore` that keeps the runner's position. */
export const SAGA_CHECKPOINTS = Symbol('SAGA_CHECKPOINTS');
/** The runner's `SagaRunnerOptions`. */
export const SAGA_RUNNER_OPTIONS = Symbol('SAGA_RUNNER_OPTIONS');
