// Start-up against a store that is not there yet (an EventStoreDB node still starting beside the
// engine, say): before the application is built, the store is asked for one stream's revision
// until it answers. While the failure is one that means "unreachable" the engine waits, with a
// doubling pause and a line per try; any other failure, or a store still unreachable when the
// allowed time is up, stops the start with a message naming the store. A secure node refusing
// the URL's user or password (`access-denied`) stops it at once with one line saying so.
import { storeUnavailableReason, type EventStore } from '@strata/event-store';

/** Read at start-up; it need not exist. */
export const STARTUP_PROBE_STREAM = 'strata-startup-probe';

const FIRST_PAUSE_MS = 250;
const LONGEST_PAUSE_MS = 5_000;

export interface StoreWaitOptions {
  /** How long to keep trying; 0 tries once. */
  readonly timeoutMs: number;
  /** Where the store is, for messages (no credentials). */
  readonly storeDescription: string;
  /** Told about each failed try that will be followed by another. */
  readonly onWaiting?: (message: string) => void;
  readonly sleep?: (milliseconds: number) => Promise<void>;
  readonly now?: () => number;
}

/** The store stayed unreachable for the whole time allowed. */
export class StoreUnreachableError extends Error {
  override readonly name = 'StoreUnreachableError';

  constructor(
    readonly storeDescription: string,
    readonly tries: number,
    readonly waitedMs: number,
    readonly reason: string,
    options: { readonly cause: unknown },
  ) {
    super(
      `the event store (${storeDescription}) could not be reached after ${tries} tries in ${waitedMs} ms ` +
        `(last: ${reason}); set STRATA_STORE_WAIT_MS to wait longer`,
      options,
    );
  }
}

/** A secure node refused the user and password of the store URL. */
export class StoreAccessDeniedError extends Error {
  override readonly name = 'StoreAccessDeniedError';

  constructor(
    readonly storeDescription: string,
    options: { readonly cause: unknown },
  ) {
    super(
      `the event store (${storeDescription}) refused the engine's credentials (access denied); ` +
        'check the user and password in STRATA_STORE (kurrentdb://user:password@host:2113?tls=true)',
      options,
    );
  }
}

function isAccessDenied(error: unknown): boolean {
  return (
    typeof error === 'object' && error !== null && (error as { type?: unknown }).type === 'access-denied'
  );
}

function defaultSleep(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}

/** Resolves once the store answers; the number of tries it took. */
export async function waitForStore(store: EventStore, options: StoreWaitOptions): Promise<number> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? defaultSleep;
  const startedAt = now();
  let pause = FIRST_PAUSE_MS;
  for (let tries = 1; ; tries += 1) {
    try {
      await store.streamRevision(STARTUP_PROBE_STREAM);
      return tries;
    } catch (error) {
      if (isAccessDenied(error)) throw new StoreAccessDeniedError(options.storeDescription, { cause: error });
      const reason = storeUnavailableReason(error);
      if (reason === undefined) throw error;
      const waitedMs = now() - startedAt;
      if (waitedMs + pause > options.timeoutMs) {
        throw new StoreUnreachableError(options.storeDescription, tries, waitedMs, reason, { cause: error });
      }
      options.onWaiting?.(
        `waiting for the event store (${options.storeDescription}): ${reason}; trying again in ${pause} ms`,
      );
      await sleep(pause);
      pause = Math.min(pause * 2, LONGEST_PAUSE_MS);
    }
  }
}
