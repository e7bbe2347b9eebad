// The engine's configuration, read from the environment once at start-up and validated with zod
// (a trust boundary). Every problem is reported at once, each naming its variable, so a
// misconfigured engine stops before it listens. The table of variables is in the README.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  DEFAULT_STORE_URL,
  StoreUrlError,
  parseStoreUrl,
  sqliteSettingsOf,
  type SqliteSettings,
  type StoreLocation,
} from '@strata/event-store';
import { z } from 'zod';
import {
  duplicateKeyProblems,
  parseApiKeyPairs,
  parseHashedKeyFile,
  type ApiKeyRecord,
} from '../tenancy/api-keys';
import {
  byteSizeVariable,
  choiceVariable,
  integerVariable,
  optionalByteSizeVariable,
  optionalPositiveIntegerVariable,
  optionalTextVariable,
} from './environment-values';
import { defaultThreadCount } from '@strata/threads';
import { anchorSettingsOf, type AnchorSettings } from './anchor-settings';
import { engineLeaseSettingsOf, type EngineLeaseSettings } from './engine-lease-settings';

export const DEFAULT_PORT = 3000;
export const DEFAULT_SAGA_CONCURRENCY = 16;
/** Context reads of one tenant that may wait for compactions (`waitForCompaction`) at once. */
export const DEFAULT_COMPACTION_WAITS_PER_TENANT = 128;
/** Write requests in progress at once, engine-wide (`STRATA_WRITE_CONCURRENCY`). */
export const DEFAULT_WRITE_CONCURRENCY = 64;
/** Tasks that may wait for a worker thread (`STRATA_WORKER_QUEUE`); one more is answered 503. */
export const DEFAULT_WORKER_QUEUE = 64;
export const logLevels = ['silent', 'error', 'warn', 'log', 'debug', 'verbose'] as const;
export type EngineLogLevel = (typeof logLevels)[number];
import { logFormats, type EngineLogFormat } from '../observability/engine-logger';

export { logFormats, type EngineLogFormat };

export const engineEnvironmentSchema = z.object({
  PORT: integerVariable({ min: 0, max: 65_535, default: DEFAULT_PORT }),
  STRATA_HOST: optionalTextVariable(),
  STRATA_METRICS_TOKEN: optionalTextVariable(),
  STRATA_STORE: optionalTextVariable(),
  STRATA_PROJECTIONS_DB: optionalTextVariable(),
  STRATA_SETTINGS: optionalTextVariable(),
  STRATA_API_KEYS: optionalTextVariable(),
  STRATA_API_KEYS_FILE: optionalTextVariable(),
  STRATA_BODY_LIMIT: byteSizeVariable('8mb'),
  STRATA_IMPORT_BODY_LIMIT: byteSizeVariable('64mb'),
  STRATA_SSE_HEARTBEAT_MS: integerVariable({ min: 100, max: 300_000, default: 15_000 }),
  STRATA_MAX_EVENT_STREAMS: integerVariable({ min: 1, max: 100_000, default: 256 }),
  STRATA_MAX_EVENT_STREAMS_PER_TENANT: optionalPositiveIntegerVariable(),
  STRATA_EVENT_STREAM_BUFFER_PER_TENANT: byteSizeVariable('32mb'),
  STRATA_READ_WAIT_MS: integerVariable({ min: 0, max: 60_000, default: 2_000 }),
  STRATA_STORE_WAIT_MS: integerVariable({ min: 0, max: 3_600_000, default: 60_000 }),
  STRATA_SHUTDOWN_TIMEOUT_MS: integerVariable({ min: 0, max: 3_600_000, default: 25_000 }),
  STRATA_CONTEXT_CACHE_SESSIONS: optionalPositiveIntegerVariable(),
  STRATA_CONTEXT_CACHE_ENTRIES: optionalPositiveIntegerVariable(),
  STRATA_FOLD_CACHE_SESSIONS: integerVariable({ min: 0, max: 1_000_000, default: 1_000 }),
  STRATA_FOLD_CACHE_ENTRIES: integerVariable({ min: 1, max: 1_000_000_000, default: 250_000 }),
  STRATA_MAX_SESSION_ENTRIES: integerVariable({ min: 1, max: 1_000_000_000, default: 250_000 }),
  STRATA_MAX_COMPACTION_WAITS_PER_TENANT: integerVariable({
    min: 1,
    max: 100_000,
    default: DEFAULT_COMPACTION_WAITS_PER_TENANT,
  }),
  STRATA_WRITE_BYTES_IN_FLIGHT: byteSizeVariable('128mb'),
  STRATA_WRITE_BYTES_IN_FLIGHT_PER_TENANT: optionalByteSizeVariable(),
  STRATA_WRITE_CONCURRENCY: integerVariable({ min: 1, max: 100_000, default: DEFAULT_WRITE_CONCURRENCY }),
  STRATA_WRITE_TENANT_CONCURRENCY: optionalPositiveIntegerVariable(),
  STRATA_WRITE_QUEUE_PER_TENANT: integerVariable({ min: 0, max: 100_000, default: 128 }),
  STRATA_WRITE_QUEUE_WAIT_MS: integerVariable({ min: 0, max: 300_000, default: 10_000 }),
  STRATA_WORKER_THREADS: integerVariable({ min: 1, max: 64, default: defaultThreadCount() }),
  STRATA_WORKER_QUEUE: integerVariable({ min: 0, max: 100_000, default: DEFAULT_WORKER_QUEUE }),
  STRATA_RETENTION_INTERVAL_MS: integerVariable({ min: 1_000, max: 86_400_000, default: 60_000 }),
  STRATA_LOG_LEVEL: choiceVariable(logLevels, 'warn'),
  STRATA_LOG_FORMAT: choiceVariable(logFormats, 'text'),
  STRATA_ACCESS_LOG: choiceVariable(['off', 'on'] as const, 'off'),
  STRATA_ENGINE_ID: optionalTextVariable(),
  STRATA_SAGA_CONCURRENCY: integerVariable({ min: 1, max: 4_096, default: DEFAULT_SAGA_CONCURRENCY }),
  STRATA_SAGA_TENANT_CONCURRENCY: optionalPositiveIntegerVariable(),
});

export interface EngineConfig {
  readonly port: number;
  /**
   * The interface to listen on (`STRATA_HOST`); every interface when undefined. Without API keys,
   * and without `STRATA_HOST`, the loopback interface only (`127.0.0.1`): an engine that anyone on
   * the network could write to is never the default.
   */
  readonly host: string | undefined;
  readonly storeUrl: string;
  /** How SQLite files are written (`STRATA_SQLITE_SYNCHRONOUS`, `STRATA_SQLITE_BUSY_TIMEOUT_MS`). */
  readonly sqlite: SqliteSettings;
  readonly storeLocation: StoreLocation;
  /** A SQLite file for the projection tables instead of the default place. */
  readonly projectionsDatabase: string | undefined;
  /** The engine settings file (validated by the engine module). */
  readonly settingsFile: string | undefined;
  /** Empty: single-tenant mode (tenant `default`, no key needed). */
  readonly apiKeys: readonly ApiKeyRecord[];
  /**
   * The SHA-256 (hex) of `STRATA_METRICS_TOKEN`, a bearer token that reads every metric and
   * nothing else, so that Prometheus need not hold a tenant's key; undefined when none is set.
   */
  readonly metricsTokenHash: string | undefined;
  readonly jsonBodyLimitBytes: number;
  readonly importBodyLimitBytes: number;
  readonly heartbeatMs: number;
  readonly maxEventStreams: number;
  /** The streams one tenant may keep open; an equal part of `maxEventStreams` per tenant when unset. */
  readonly maxEventStreamsPerTenant: number | undefined;
  /** Bytes one tenant's event streams may hold unsent to their clients before they read more. */
  readonly eventStreamBufferBytes: number;
  /** How long a read waits for the projections to reach the store's head before answering. */
  readonly readWaitMs: number;
  /** How long `npm start` waits for an unreachable store before giving up. */
  readonly storeWaitMs: number;
  /**
   * How long a stop (SIGTERM, SIGINT) lets the requests in progress finish before the engine
   * closes anyway (below Kubernetes' default grace period of 30 s).
   */
  readonly shutdownTimeoutMs: number;
  /** Context reads of one tenant that may wait for compactions at once; more answer 503. */
  readonly compactionWaitsPerTenant: number;
  /** How often a retention pass runs while the settings name a rule. */
  readonly retentionIntervalMs: number;
  /**
   * The admission of write requests (docs/decisions/0009): the bytes (declared) and the number
   * of writes in progress, engine-wide and for one tenant, the writes one tenant may have
   * waiting, and how long one waits before it is refused.
   */
  readonly writeAdmission: {
    readonly bytes: number;
    readonly bytesPerTenant: number;
    readonly writes: number;
    readonly writesPerTenant: number;
    readonly queuedPerTenant: number;
    readonly queueWaitMs: number;
  };
  /**
   * The worker threads that parse, check and seal large session files away from the event loop
   * (`STRATA_WORKER_THREADS`), and the tasks that may wait for one (`STRATA_WORKER_QUEUE`).
   */
  readonly workers: { readonly threads: number; readonly maxQueued: number };
  readonly contextCache: { readonly maxSessions?: number; readonly maxEntries?: number };
  /** The folded sessions the write side keeps between commands (maxSessions 0 keeps none). */
  readonly foldCache: {
    readonly maxSessions: number;
    readonly maxEntries: number;
    readonly maxSessionEntries: number;
  };
  readonly logLevel: EngineLogLevel;
  /** How log lines are written (`STRATA_LOG_FORMAT`). */
  readonly logFormat: EngineLogFormat;
  /** Whether every answered request is logged (`STRATA_ACCESS_LOG=on`), at level `log`. */
  readonly accessLog: boolean;
  /** This engine's id among several on one store (`STRATA_ENGINE_ID`); undefined: alone. */
  readonly engineId: string | undefined;
  /** The liveness lease of an engine with an id (`STRATA_ENGINE_LEASE_MS`, `STRATA_ENGINE_LEASE_RENEW_MS`). */
  readonly engineLease: EngineLeaseSettings;
  /** Sessions the sagas handle at once, in all and for one tenant. */
  readonly sagas: { readonly concurrency: number; readonly maxPerTenant: number };
  /** The signed log: signing, keys, checkpoints, witnesses (anchor-settings.ts). */
  readonly anchors: AnchorSettings;
  /** The working directory relative paths were resolved against. */
  readonly cwd: string;
}

/** The configuration is unusable; `problems` names each variable and what is wrong. */
/** The shortest metrics token taken (as for API keys). */
export const MIN_METRICS_TOKEN_LENGTH = 16;

/** Where an engine without API keys listens unless `STRATA_HOST` says otherwise. */
export const LOOPBACK_WITHOUT_KEYS = '127.0.0.1';

export class ConfigurationError extends Error {
  override readonly name = 'ConfigurationError';
  readonly code = 'validation';

  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
  }
}

type Environment = Readonly<Record<string, string | undefined>>;

function readKeyFile(file: string, cwd: string): { records: readonly ApiKeyRecord[]; problems: string[] } {
  const resolved = path.resolve(cwd, file);
  let text: string;
  try {
    text = fs.readFileSync(resolved, 'utf8');
  } catch (error) {
    return {
      records: [],
      problems: [`STRATA_API_KEYS_FILE: cannot read ${resolved}: ${(error as Error).message}`],
    };
  }
  const parsed = parseHashedKeyFile(text, path.basename(resolved));
  return { records: parsed.records, problems: [...parsed.problems] };
}

function storeLocationOf(url: string, cwd: string, problems: string[]): StoreLocation | undefined {
  try {
    return parseStoreUrl(url, cwd);
  } catch (error) {
    if (!(error instanceof StoreUrlError)) throw error;
    problems.push(`STRATA_STORE: ${error.message}`);
    return undefined;
  }
}

/** Reads and checks the configuration; throws `ConfigurationError` listing every problem. */
export function loadEngineConfig(environment: Environment, cwd: string = process.cwd()): EngineConfig {
  const parsed = engineEnvironmentSchema.safeParse(environment);
  const problems: string[] = parsed.success
    ? []
    : parsed.error.issues.map((issue) => `${issue.path.map(String).join('.')}: ${issue.message}`);
  const values = parsed.success ? parsed.data : undefined;
  const text = (name: string): string | undefined => environment[name]?.trim() || undefined;
  const storeUrl = text('STRATA_STORE') ?? DEFAULT_STORE_URL;
  const storeLocation = storeLocationOf(storeUrl, cwd, problems);
  const sqlite = sqliteSettingsOf(environment);
  problems.push(...sqlite.problems);
  const engineLease = engineLeaseSettingsOf(environment);
  problems.push(...engineLease.problems);
  const fromEnvironment = parseApiKeyPairs(text('STRATA_API_KEYS') ?? '');
  const keyFile = text('STRATA_API_KEYS_FILE');
  const fromFile = keyFile !== undefined ? readKeyFile(keyFile, cwd) : { records: [], problems: [] };
  const apiKeys = [...fromEnvironment.records, ...fromFile.records];
  problems.push(...fromEnvironment.problems, ...fromFile.problems, ...duplicateKeyProblems(apiKeys));
  const metricsToken = values?.STRATA_METRICS_TOKEN;
  if (metricsToken !== undefined && metricsToken.length < MIN_METRICS_TOKEN_LENGTH) {
    problems.push(`STRATA_METRICS_TOKEN: at least ${MIN_METRICS_TOKEN_LENGTH} characters`);
  }
  const anchors = anchorSettingsOf(environment, cwd);
  problems.push(...anchors.problems);
  if (values === undefined || storeLocation === undefined || problems.length > 0) {
    throw new ConfigurationError(problems);
  }
  return {
    port: values.PORT,
    host: values.STRATA_HOST ?? (apiKeys.length === 0 ? LOOPBACK_WITHOUT_KEYS : undefined),
    storeUrl,
    sqlite: sqlite.settings,
    storeLocation,
    projectionsDatabase: values.STRATA_PROJECTIONS_DB,
    settingsFile: values.STRATA_SETTINGS,
    apiKeys,
    metricsTokenHash:
      metricsToken === undefined ? undefined : createHash('sha256').update(metricsToken).digest('hex'),
    jsonBodyLimitBytes: values.STRATA_BODY_LIMIT,
    importBodyLimitBytes: values.STRATA_IMPORT_BODY_LIMIT,
    heartbeatMs: values.STRATA_SSE_HEARTBEAT_MS,
    maxEventStreams: values.STRATA_MAX_EVENT_STREAMS,
    maxEventStreamsPerTenant: values.STRATA_MAX_EVENT_STREAMS_PER_TENANT,
    eventStreamBufferBytes: values.STRATA_EVENT_STREAM_BUFFER_PER_TENANT,
    readWaitMs: values.STRATA_READ_WAIT_MS,
    storeWaitMs: values.STRATA_STORE_WAIT_MS,
    shutdownTimeoutMs: values.STRATA_SHUTDOWN_TIMEOUT_MS,
    contextCache: {
      ...(values.STRATA_CONTEXT_CACHE_SESSIONS !== undefined
        ? { maxSessions: values.STRATA_CONTEXT_CACHE_SESSIONS }
        : {}),
      ...(values.STRATA_CONTEXT_CACHE_ENTRIES !== undefined
        ? { maxEntries: values.STRATA_CONTEXT_CACHE_ENTRIES }
        : {}),
    },
    compactionWaitsPerTenant: values.STRATA_MAX_COMPACTION_WAITS_PER_TENANT,
    retentionIntervalMs: values.STRATA_RETENTION_INTERVAL_MS,
    writeAdmission: {
      bytes: values.STRATA_WRITE_BYTES_IN_FLIGHT,
      bytesPerTenant: Math.min(
        values.STRATA_WRITE_BYTES_IN_FLIGHT,
        values.STRATA_WRITE_BYTES_IN_FLIGHT_PER_TENANT ??
          defaultTenantByteShare(values.STRATA_WRITE_BYTES_IN_FLIGHT, values.STRATA_BODY_LIMIT, apiKeys),
      ),
      writes: values.STRATA_WRITE_CONCURRENCY,
      writesPerTenant: Math.min(
        values.STRATA_WRITE_CONCURRENCY,
        values.STRATA_WRITE_TENANT_CONCURRENCY ??
          defaultTenantShare(values.STRATA_WRITE_CONCURRENCY, apiKeys),
      ),
      queuedPerTenant: values.STRATA_WRITE_QUEUE_PER_TENANT,
      queueWaitMs: values.STRATA_WRITE_QUEUE_WAIT_MS,
    },
    workers: { threads: values.STRATA_WORKER_THREADS, maxQueued: values.STRATA_WORKER_QUEUE },
    foldCache: {
      maxSessions: values.STRATA_FOLD_CACHE_SESSIONS,
      maxEntries: values.STRATA_FOLD_CACHE_ENTRIES,
      maxSessionEntries: values.STRATA_MAX_SESSION_ENTRIES,
    },
    logLevel: values.STRATA_LOG_LEVEL,
    logFormat: values.STRATA_LOG_FORMAT,
    accessLog: values.STRATA_ACCESS_LOG === 'on',
    engineId: values.STRATA_ENGINE_ID,
    engineLease: engineLease.settings,
    sagas: {
      concurrency: values.STRATA_SAGA_CONCURRENCY,
      maxPerTenant: Math.min(
        values.STRATA_SAGA_CONCURRENCY,
        values.STRATA_SAGA_TENANT_CONCURRENCY ?? defaultTenantShare(values.STRATA_SAGA_CONCURRENCY, apiKeys),
      ),
    },
    anchors: anchors.settings,
    cwd,
  };
}

/**
 * A tenant's share of a bound when not configured (saga slots, write bytes and writes): all of it
 * for a single tenant, half (rounded up) when keys name several tenants, so one busy tenant never
 * takes everything.
 */
export function defaultTenantShare(concurrency: number, apiKeys: readonly ApiKeyRecord[]): number {
  const tenants = new Set(apiKeys.map((key) => key.tenant));
  return tenants.size <= 1 ? concurrency : Math.ceil(concurrency / 2);
}

/**
 * A tenant's share of the bytes of writes in progress: all of them with one tenant; with several,
 * half of them but at most two of the largest JSON bodies. Every byte admitted is work queued on
 * the one event loop (parsing, folding, canonicalising), and a tenant gains nothing from more of
 * it at once: in the isolation bench, with a 64 MiB share, eight of tenant A's 8 MiB appends in
 * progress made tenant B's append p99 140 times its quiet value while A wrote 27 appends; with
 * 16 MiB, B's p99 was 18 times quiet and A wrote 30 (docs/decisions/0008).
 */
export function defaultTenantByteShare(
  budget: number,
  bodyLimit: number,
  apiKeys: readonly ApiKeyRecord[],
): number {
  const share = defaultTenantShare(budget, apiKeys);
  return share === budget ? budget : Math.min(share, 2 * bodyLimit);
}

/** Where the store is, for the start-up message (never credentials of an EventStoreDB URL). */
export function describeStore(location: StoreLocation): string {
  switch (location.kind) {
    case 'sqlite':
      return `SQLite ${location.filename}`;
    case 'memory':
      return 'in memory (nothing is kept after exit)';
    case 'esdb':
      return `EventStoreDB ${location.connectionString.replace(/\/\/[^@/]*@/, '//***@')}`;
    default: {
      const unhandled: never = location;
      throw new Error(`unhandled store location ${JSON.stringify(unhandled)}`);
    }
  }
}
