// The tenant a piece of work is done for, carried along its asynchronous calls (node's
// AsyncLocalStorage), so that the store layer can record it on the events the work writes
// without every command and service passing it by hand.
import { AsyncLocalStorage } from 'node:async_hooks';

const scope = new AsyncLocalStorage<string>();

/** Runs `work` (and everything it awaits or starts) on behalf of `tenant`. */
export function runAsTenant<Result>(tenant: string, work: () => Result): Result {
  return scope.run(tenant, work);
}

/** The tenant of the work in progress; undefined outside `runAsTenant` (sagas, start-up). */
export function currentTenant(): string | undefined {
  return scope.getStore();
}
