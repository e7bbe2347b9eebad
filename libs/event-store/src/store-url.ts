// Store URLs: one string that names an event store and opens the right adapter.
//   sqlite:<path>                 the embedded default (`sqlite:./data/strata.db`); relative to the cwd
//   memory:                       a private in-memory store (tests, dry runs)
//   esdb://host:2113?tls=false    EventStoreDB (also `esdb+discover://` for a cluster), passed as is
//   kurrentdb://host:2113         KurrentDB, EventStoreDB's successor (also `kurrentdb+discover://`):
//                                 the same gRPC protocol, so the client gets the URL with the
//                                 scheme `esdb` (the client of the design card knows only that one)
// `STRATA_STORE` in the environment replaces the default when no URL is given.
import { isAbsolute, resolve } from 'node:path';
import { EsdbEventStore } from './esdb/esdb-event-store';
import { InMemoryEventStore } from './memory/in-memory-event-store';
import type { EventStore } from './port';
import { SqliteEventStore } from './sqlite/sqlite-event-store';
import type { SqliteSettings } from './sqlite/sqlite-settings';

export const DEFAULT_STORE_URL = 'sqlite:./data/strata.db';
export const STORE_URL_ENVIRONMENT_VARIABLE = 'STRATA_STORE';

export type StoreLocation =
  | { readonly kind: 'sqlite'; readonly filename: string }
  | { readonly kind: 'memory' }
  | { readonly kind: 'esdb'; readonly connectionString: string };

/** A store URL that names no store Strata can open. */
export class StoreUrlError extends Error {
  override readonly name = 'StoreUrlError';

  constructor(
    readonly url: string,
    reason: string,
  ) {
    super(
      `invalid store URL '${url}': ${reason} (expected sqlite:<path>, memory:, esdb://host:2113?tls=false or kurrentdb://host:2113?tls=false)`,
    );
  }
}

/** The URL to use: the one given, else `STRATA_STORE` from `environment`, else the SQLite default. */
export function resolveStoreUrl(
  given: string | undefined,
  environment: Readonly<Record<string, string | undefined>> = {},
): string {
  if (given !== undefined) return given;
  const fromEnvironment = environment[STORE_URL_ENVIRONMENT_VARIABLE];
  return fromEnvironment !== undefined && fromEnvironment.trim() !== '' ? fromEnvironment : DEFAULT_STORE_URL;
}

function sqliteLocation(url: string, rest: string, cwd: string): StoreLocation {
  // `sqlite:///abs/file.db` and `sqlite://./file.db` are accepted besides `sqlite:<path>`.
  const path = rest.startsWith('//') ? rest.slice(2) : rest;
  if (path === '') throw new StoreUrlError(url, 'the SQLite URL names no file');
  if (path === ':memory:') return { kind: 'sqlite', filename: path };
  return { kind: 'sqlite', filename: isAbsolute(path) ? path : resolve(cwd, path) };
}

/** KurrentDB's schemes, and the EventStoreDB scheme the client reads each as. */
const KURRENTDB_SCHEMES: Readonly<Record<string, string>> = {
  kurrentdb: 'esdb',
  'kurrentdb+discover': 'esdb+discover',
};

function esdbLocation(url: string, scheme: string): StoreLocation {
  const rest = url.slice(scheme.length + 1);
  if (!rest.startsWith('//')) throw new StoreUrlError(url, `${scheme}: must be followed by //host:port`);
  const authority = rest.slice(2).split(/[/?]/, 1)[0] ?? '';
  const hosts = authority.slice(authority.lastIndexOf('@') + 1).split(',');
  if (hosts.some((host) => host.trim() === '')) {
    throw new StoreUrlError(url, 'the EventStoreDB URL names no host');
  }
  const clientScheme = KURRENTDB_SCHEMES[scheme];
  return {
    kind: 'esdb',
    connectionString: clientScheme === undefined ? url : `${clientScheme}:${url.slice(scheme.length + 1)}`,
  };
}

/** Reads a store URL; relative SQLite paths are resolved against `cwd`. Throws `StoreUrlError`. */
export function parseStoreUrl(url: string, cwd: string = process.cwd()): StoreLocation {
  const trimmed = url.trim();
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(trimmed)?.[1]?.toLowerCase();
  switch (scheme) {
    case 'sqlite':
      return sqliteLocation(url, trimmed.slice('sqlite:'.length), cwd);
    case 'memory':
      if (trimmed.slice('memory:'.length).replace(/^\/\//, '') !== '') {
        throw new StoreUrlError(url, 'memory: takes no path');
      }
      return { kind: 'memory' };
    case 'esdb':
    case 'esdb+discover':
    case 'kurrentdb':
    case 'kurrentdb+discover':
      return esdbLocation(trimmed, scheme);
    case undefined:
      throw new StoreUrlError(url, 'it has no scheme');
    default:
      throw new StoreUrlError(url, `unknown scheme '${scheme}:'`);
  }
}

export interface OpenEventStoreOptions {
  /** Base of relative SQLite paths; the process's working directory by default. */
  readonly cwd?: string;
  /** How a SQLite store writes (`sqliteSettingsOf` reads them from the environment). */
  readonly sqlite?: Partial<SqliteSettings>;
}

/** Opens the store a URL names (see the module header). The caller closes it. */
export function openEventStore(url: string, options: OpenEventStoreOptions = {}): EventStore {
  const location = parseStoreUrl(url, options.cwd);
  switch (location.kind) {
    case 'sqlite':
      return new SqliteEventStore({ filename: location.filename, ...options.sqlite });
    case 'memory':
      return new InMemoryEventStore();
    case 'esdb':
      return EsdbEventStore.fromConnectionString(location.connectionString);
    default: {
      const unhandled: never = location;
      throw new Error(`unhandled store location ${JSON.stringify(unhandled)}`);
    }
  }
}
