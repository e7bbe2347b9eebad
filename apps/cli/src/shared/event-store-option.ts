// The `--store <url>` option of the commands that use the event store: the URL given, else
// `STRATA_STORE` from the command's environment, else `sqlite:./data/strata.db` (relative to
// the command's working directory). The store is always closed when the command's work ends; a store
// that cannot serve is reported in one line naming it.
import {
  openEventStore,
  resolveStoreUrl,
  sqliteSettingsOf,
  StoreUrlError,
  type EventStore,
  type OpenEventStoreOptions,
} from '@strata/event-store';
import { SessionNotFoundError } from '@strata/session-files';
import { CliError, type CliIo } from '../cli-io';
import { storeUnreachable } from './user-mistakes';

export const storeOptionUsage = '[--store <url>]';

/** The help line of `--store`. */
export const storeOptionHelp =
  '--store: the event store, sqlite:<path> (default sqlite:./data/strata.db), memory: or esdb://host:2113?tls=false; STRATA_STORE sets the default';

/**
 * How the command opens stores: relative to its working directory, SQLite files written as
 * `STRATA_SQLITE_SYNCHRONOUS` and `STRATA_SQLITE_BUSY_TIMEOUT_MS` say (a wrong value exits 2).
 */
export function storeOpeningOptions(io: CliIo): Required<OpenEventStoreOptions> {
  const { settings, problems } = sqliteSettingsOf(io.env);
  if (problems.length > 0) throw new CliError(problems.join('\n'), 2);
  return { cwd: io.cwd, sqlite: settings };
}

/** Opens the store, runs `work` with it, and closes it whatever happens. */
export async function withEventStore<Result>(
  storeUrl: string | undefined,
  io: CliIo,
  work: (store: EventStore) => Promise<Result>,
): Promise<Result> {
  let store: EventStore;
  let url: string | undefined;
  try {
    url = resolveStoreUrl(storeUrl, io.env);
    store = openEventStore(url, storeOpeningOptions(io));
  } catch (error) {
    if (error instanceof CliError) throw error;
    if (error instanceof StoreUrlError) throw new CliError(error.message, 2);
    throw new CliError(`cannot open the store: ${error instanceof Error ? error.message : String(error)}`);
  }
  try {
    return await work(store);
  } catch (error) {
    if (error instanceof SessionNotFoundError) throw new CliError(error.message);
    throw storeUnreachable(error, url) ?? error;
  } finally {
    await store.close();
  }
}
