// What crosses between the task pool and its threads: a task (an export of a module, named by
// the module's absolute path, and its argument), its outcome, and errors as plain data (name,
// message and own fields), which the caller turns back into its own classes.

/** One task: call `task` of the module at `module` with `args`. */
export interface TaskRequest {
  readonly id: number;
  readonly module: string;
  readonly task: string;
  readonly args: unknown;
}

export type TaskOutcome =
  | { readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly id: number; readonly ok: false; readonly error: SerializedTaskError };

/** An error thrown by a task, as data: its class name, message and own enumerable fields. */
export interface SerializedTaskError {
  readonly name: string;
  readonly message: string;
  readonly fields: Readonly<Record<string, unknown>>;
}

function cloneable(value: unknown): boolean {
  return value === null || ['string', 'number', 'boolean', 'bigint', 'undefined'].includes(typeof value);
}

export function serializeTaskError(error: unknown): SerializedTaskError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error), fields: {} };
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(error)) {
    // only plain fields cross; a nested object could hold what cannot be cloned
    if (cloneable(value) || (Array.isArray(value) && value.every(cloneable))) fields[key] = value;
  }
  return { name: error.name, message: error.message, fields };
}

/** A task failed with an error the caller did not turn into one of its own classes. */
export class TaskFailedError extends Error {
  override readonly name = 'TaskFailedError';

  constructor(
    readonly task: string,
    readonly failure: SerializedTaskError,
  ) {
    super(`${task} failed on a worker thread: ${failure.name}: ${failure.message}`);
  }
}
