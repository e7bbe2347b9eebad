// Synchronous storage work (better-sqlite3, Maps) behind the async storage ports.

/** Runs `work` now and returns its result as a promise; a throw becomes a rejection. */
export function settle<Result>(work: () => Result): Promise<Result> {
  try {
    return Promise.resolve(work());
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}
