import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashApiKey } from '../tenancy/api-keys';
import { ConfigurationError, describeStore, loadEngineConfig } from './engine-config';
import { parseByteSize } from './environment-values';

function problemsOf(environment: Record<string, string>, cwd = '/srv/strata'): readonly string[] {
  try {
    loadEngineConfig(environment, cwd);
  } catch (error) {
    if (error instanceof ConfigurationError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigurationError');
}

describe('given an empty environment', () => {
  it('runs on port 3000 with the SQLite store in ./data, single-tenant', () => {
    const config = loadEngineConfig({}, '/srv/strata');
    expect(config).toMatchObject({
      port: 3000,
      // no API keys: only this machine may reach it (issue 26, safer defaults)
      host: '127.0.0.1',
      storeUrl: 'sqlite:./data/strata.db',
      storeLocation: { kind: 'sqlite', filename: '/srv/strata/data/strata.db' },
      apiKeys: [],
      jsonBodyLimitBytes: 8 * 1024 * 1024,
      importBodyLimitBytes: 64 * 1024 * 1024,
      heartbeatMs: 15_000,
      maxEventStreams: 256,
      maxEventStreamsPerTenant: undefined,
      eventStreamBufferBytes: 32 * 1024 * 1024,
      foldCache: { maxSessions: 1_000, maxEntries: 250_000 },
      logLevel: 'warn',
    });
  });
});

describe('the metrics token', () => {
  it('keeps only its SHA-256, and refuses one shorter than 16 characters', () => {
    expect(loadEngineConfig({}, '/srv').metricsTokenHash).toBeUndefined();
    expect(loadEngineConfig({ STRATA_METRICS_TOKEN: 'scrape-token-0123456' }, '/srv').metricsTokenHash).toBe(
      createHash('sha256').update('scrape-token-0123456').digest('hex'),
    );
    expect(() => loadEngineConfig({ STRATA_METRICS_TOKEN: 'short' }, '/srv')).toThrow(
      /STRATA_METRICS_TOKEN: at least 16 characters/,
    );
  });
});

describe('where the engine listens', () => {
  it('listens on every interface with API keys, on the loopback only without, and where STRATA_HOST says in both cases', () => {
    const keys = { STRATA_API_KEYS: 'acme:key-0123456789abcdef' };
    expect(loadEngineConfig(keys, '/srv').host).toBeUndefined();
    expect(loadEngineConfig({}, '/srv').host).toBe('127.0.0.1');
    expect(loadEngineConfig({ STRATA_HOST: '0.0.0.0' }, '/srv').host).toBe('0.0.0.0');
    expect(loadEngineConfig({ ...keys, STRATA_HOST: '10.0.0.5' }, '/srv').host).toBe('10.0.0.5');
  });
});

describe('given variables that set everything', () => {
  it('reads each of them', () => {
    const config = loadEngineConfig(
      {
        PORT: '8080',
        STRATA_HOST: '127.0.0.1',
        STRATA_STORE: 'esdb://user:secret@db:2113?tls=false',
        STRATA_BODY_LIMIT: '512kb',
        STRATA_IMPORT_BODY_LIMIT: '2mb',
        STRATA_SSE_HEARTBEAT_MS: '5000',
        STRATA_MAX_EVENT_STREAMS: '10',
        STRATA_MAX_EVENT_STREAMS_PER_TENANT: '4',
        STRATA_EVENT_STREAM_BUFFER_PER_TENANT: '1mb',
        STRATA_CONTEXT_CACHE_SESSIONS: '50',
        STRATA_FOLD_CACHE_SESSIONS: '0',
        STRATA_FOLD_CACHE_ENTRIES: '5000',
        STRATA_LOG_LEVEL: 'DEBUG',
        STRATA_API_KEYS: 'acme:0123456789abcdef0123, globex:fedcba9876543210fedc:read',
      },
      '/srv',
    );
    expect(config).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      storeLocation: { kind: 'esdb' },
      jsonBodyLimitBytes: 512 * 1024,
      importBodyLimitBytes: 2 * 1024 * 1024,
      heartbeatMs: 5000,
      maxEventStreams: 10,
      maxEventStreamsPerTenant: 4,
      eventStreamBufferBytes: 1024 * 1024,
      contextCache: { maxSessions: 50 },
      foldCache: { maxSessions: 0, maxEntries: 5000 },
      logLevel: 'debug',
    });
    expect(config.apiKeys).toEqual([
      expect.objectContaining({
        tenant: 'acme',
        keyHash: hashApiKey('0123456789abcdef0123'),
        access: 'read_write',
      }),
      expect.objectContaining({ tenant: 'globex', access: 'read_only' }),
    ]);
    expect(JSON.stringify(config.apiKeys)).not.toContain('0123456789abcdef0123');
    expect(describeStore(config.storeLocation)).toBe('EventStoreDB esdb://***@db:2113?tls=false');
  });
});

describe('given invalid variables', () => {
  it('reports every problem at once, each naming its variable', () => {
    const problems = problemsOf({
      PORT: 'eighty',
      STRATA_STORE: 'postgres://db',
      STRATA_BODY_LIMIT: 'large',
      STRATA_LOG_LEVEL: 'loud',
      STRATA_FOLD_CACHE_SESSIONS: 'many',
      STRATA_API_KEYS: 'acme:xyzzy,just-a-key',
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^PORT: must be an integer from 0 to 65535, not 'eighty'/),
        expect.stringMatching(/^STRATA_STORE: invalid store URL/),
        expect.stringMatching(/^STRATA_BODY_LIMIT: must be a size/),
        expect.stringMatching(/^STRATA_LOG_LEVEL: must be one of/),
        expect.stringMatching(/^STRATA_FOLD_CACHE_SESSIONS: must be an integer from 0 to 1000000/),
        expect.stringMatching(/^STRATA_API_KEYS entry 1: the key of tenant 'acme' is shorter than 16/),
        expect.stringMatching(/^STRATA_API_KEYS entry 2: must be tenant:key/),
      ]),
    );
    expect(problems.join('\n')).not.toContain('xyzzy');
  });

  it('refuses the same key given twice', () => {
    const problems = problemsOf({ STRATA_API_KEYS: 'a:0123456789abcdef0123 b:0123456789abcdef0123' });
    expect(problems).toEqual([
      expect.stringMatching(/entry 2: the same key is already given by STRATA_API_KEYS entry 1/),
    ]);
  });
});

describe('given a file of hashed keys', () => {
  let directory: string;

  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'strata-config-'));
  });

  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it('reads tenant:hash lines, skipping comments and blank lines', () => {
    writeFileSync(
      join(directory, 'keys.txt'),
      `# tenants\n\nacme:${hashApiKey('acme-secret-key-0001')}\nglobex:${hashApiKey('globex-secret-key-01').toUpperCase()}:read # auditors\n`,
    );
    const config = loadEngineConfig({ STRATA_API_KEYS_FILE: 'keys.txt' }, directory);
    expect(config.apiKeys).toEqual([
      expect.objectContaining({
        tenant: 'acme',
        keyHash: hashApiKey('acme-secret-key-0001'),
        source: 'keys.txt line 3',
      }),
      expect.objectContaining({
        tenant: 'globex',
        keyHash: hashApiKey('globex-secret-key-01'),
        access: 'read_only',
      }),
    ]);
  });

  it('names the line of a bad hash and a missing file', () => {
    writeFileSync(join(directory, 'keys.txt'), 'acme:not-a-hash\n');
    expect(problemsOf({ STRATA_API_KEYS_FILE: 'keys.txt' }, directory)).toEqual([
      expect.stringMatching(/^keys\.txt line 1: the hash must be 64 hexadecimal characters/),
    ]);
    expect(problemsOf({ STRATA_API_KEYS_FILE: 'missing.txt' }, directory)).toEqual([
      expect.stringMatching(/^STRATA_API_KEYS_FILE: cannot read .*missing\.txt/),
    ]);
  });
});

describe('byte sizes', () => {
  it.each([
    ['1048576', 1_048_576],
    ['512kb', 524_288],
    ['10MB', 10_485_760],
    ['1.5gb', 1_610_612_736],
  ])('reads %s', (text, bytes) => {
    expect(parseByteSize(text)).toBe(bytes);
  });

  it.each(['', 'ten', '-1', '0', '5tb'])('refuses %p', (text) => {
    expect(parseByteSize(text)).toBeUndefined();
  });
});

describe('the admission of writes', () => {
  const twoTenants = 'acme:0123456789abcdef0123 globex:fedcba9876543210fedc';

  it('gives a single tenant the whole budget by default', () => {
    expect(loadEngineConfig({}, '/srv').writeAdmission).toEqual({
      bytes: 128 * 1024 * 1024,
      bytesPerTenant: 128 * 1024 * 1024,
      writes: 64,
      writesPerTenant: 64,
      queuedPerTenant: 128,
      queueWaitMs: 10_000,
    });
  });

  it('gives each tenant half of the writes, and of the bytes at most two of the largest bodies, when keys name several', () => {
    expect(loadEngineConfig({ STRATA_API_KEYS: twoTenants }, '/srv').writeAdmission).toMatchObject({
      bytesPerTenant: 16 * 1024 * 1024,
      writesPerTenant: 32,
    });
    const smallBudget = { STRATA_API_KEYS: twoTenants, STRATA_WRITE_BYTES_IN_FLIGHT: '20mb' };
    expect(loadEngineConfig(smallBudget, '/srv').writeAdmission.bytesPerTenant).toBe(10 * 1024 * 1024);
    const largeBodies = { STRATA_API_KEYS: twoTenants, STRATA_BODY_LIMIT: '24mb' };
    expect(loadEngineConfig(largeBodies, '/srv').writeAdmission.bytesPerTenant).toBe(48 * 1024 * 1024);
  });

  it('reads each variable, and never gives a tenant more than the budget', () => {
    const config = loadEngineConfig(
      {
        STRATA_API_KEYS: twoTenants,
        STRATA_WRITE_BYTES_IN_FLIGHT: '16mb',
        STRATA_WRITE_BYTES_IN_FLIGHT_PER_TENANT: '32mb',
        STRATA_WRITE_CONCURRENCY: '8',
        STRATA_WRITE_TENANT_CONCURRENCY: '3',
        STRATA_WRITE_QUEUE_PER_TENANT: '0',
        STRATA_WRITE_QUEUE_WAIT_MS: '250',
      },
      '/srv',
    );
    expect(config.writeAdmission).toEqual({
      bytes: 16 * 1024 * 1024,
      bytesPerTenant: 16 * 1024 * 1024,
      writes: 8,
      writesPerTenant: 3,
      queuedPerTenant: 0,
      queueWaitMs: 250,
    });
  });

  it('names each variable it cannot read', () => {
    const problems = problemsOf({
      STRATA_WRITE_BYTES_IN_FLIGHT: 'lots',
      STRATA_WRITE_BYTES_IN_FLIGHT_PER_TENANT: '0',
      STRATA_WRITE_CONCURRENCY: '0',
      STRATA_WRITE_TENANT_CONCURRENCY: '-2',
      STRATA_WRITE_QUEUE_PER_TENANT: 'some',
      STRATA_WRITE_QUEUE_WAIT_MS: '600000',
    });
    expect(problems).toEqual([
      expect.stringMatching(/^STRATA_WRITE_BYTES_IN_FLIGHT: must be a size/),
      expect.stringMatching(/^STRATA_WRITE_BYTES_IN_FLIGHT_PER_TENANT: must be a size/),
      expect.stringMatching(/^STRATA_WRITE_CONCURRENCY: must be an integer from 1 to 100000/),
      expect.stringMatching(/^STRATA_WRITE_TENANT_CONCURRENCY: must be a positive integer/),
      expect.stringMatching(/^STRATA_WRITE_QUEUE_PER_TENANT: must be an integer from 0 to 100000/),
      expect.stringMatching(/^STRATA_WRITE_QUEUE_WAIT_MS: must be an integer from 0 to 300000/),
    ]);
  });
});
