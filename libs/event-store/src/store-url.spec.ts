import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEsdbTestServer } from '@strata/testing';
import { EsdbEventStore } from './esdb/esdb-event-store';
import { InMemoryEventStore } from './memory/in-memory-event-store';
import { SqliteEventStore } from './sqlite/sqlite-event-store';
import {
  DEFAULT_STORE_URL,
  StoreUrlError,
  openEventStore,
  parseStoreUrl,
  resolveStoreUrl,
} from './store-url';

describe('resolveStoreUrl', () => {
  it('prefers the URL given, then STRATA_STORE, then the SQLite default', () => {
    expect(resolveStoreUrl('memory:', { STRATA_STORE: 'sqlite:/x.db' })).toBe('memory:');
    expect(resolveStoreUrl(undefined, { STRATA_STORE: 'sqlite:/x.db' })).toBe('sqlite:/x.db');
    expect(resolveStoreUrl(undefined, { STRATA_STORE: '  ' })).toBe(DEFAULT_STORE_URL);
    expect(resolveStoreUrl(undefined, {})).toBe('sqlite:./data/strata.db');
  });
});

describe('parseStoreUrl', () => {
  it('resolves a relative SQLite path against the working directory given', () => {
    expect(parseStoreUrl('sqlite:./data/strata.db', '/srv/app')).toEqual({
      kind: 'sqlite',
      filename: '/srv/app/data/strata.db',
    });
    expect(parseStoreUrl('sqlite:events.db', '/srv/app')).toEqual({
      kind: 'sqlite',
      filename: '/srv/app/events.db',
    });
  });

  it('keeps absolute SQLite paths, with or without the // form', () => {
    expect(parseStoreUrl('sqlite:/var/strata.db', '/srv')).toEqual({
      kind: 'sqlite',
      filename: '/var/strata.db',
    });
    expect(parseStoreUrl('sqlite:///var/strata.db', '/srv')).toEqual({
      kind: 'sqlite',
      filename: '/var/strata.db',
    });
  });

  it('reads memory: and passes EventStoreDB connection strings through unchanged', () => {
    expect(parseStoreUrl('memory:')).toEqual({ kind: 'memory' });
    expect(parseStoreUrl('esdb://localhost:2113?tls=false')).toEqual({
      kind: 'esdb',
      connectionString: 'esdb://localhost:2113?tls=false',
    });
    expect(parseStoreUrl('esdb+discover://a:2113,b:2113')).toEqual({
      kind: 'esdb',
      connectionString: 'esdb+discover://a:2113,b:2113',
    });
  });

  it('reads KurrentDB URLs as the EventStoreDB URLs of the same protocol', () => {
    expect(parseStoreUrl('kurrentdb://localhost:2113?tls=false')).toEqual({
      kind: 'esdb',
      connectionString: 'esdb://localhost:2113?tls=false',
    });
    expect(parseStoreUrl('KurrentDB+Discover://admin:changeit@a:2113,b:2113?tlsCAFile=ca.crt')).toEqual({
      kind: 'esdb',
      connectionString: 'esdb+discover://admin:changeit@a:2113,b:2113?tlsCAFile=ca.crt',
    });
  });

  it.each([
    ['kurrentdb://', 'names no host'],
    ['kurrentdb:a:2113', 'must be followed by //host:port'],
    ['postgres://localhost/db', "unknown scheme 'postgres:'"],
    ['./data/strata.db', 'it has no scheme'],
    ['sqlite:', 'names no file'],
    ['memory:/somewhere', 'memory: takes no path'],
    ['esdb://', 'names no host'],
    ['esdb:localhost:2113', 'must be followed by //host:port'],
    ['esdb+discover://a:2113,,b:2113', 'names no host'],
  ])('refuses %s with a StoreUrlError that says why', (url, reason) => {
    expect(() => parseStoreUrl(url)).toThrow(StoreUrlError);
    expect(() => parseStoreUrl(url)).toThrow(reason);
    expect(() => parseStoreUrl(url)).toThrow(`invalid store URL '${url}'`);
  });
});

describe('openEventStore', () => {
  it('opens an in-memory store for memory:', async () => {
    const store = openEventStore('memory:');
    expect(store).toBeInstanceOf(InMemoryEventStore);
    await store.close();
  });

  it('opens (creating) the SQLite file a relative URL names under the working directory', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'strata-store-url-'));
    try {
      const store = openEventStore('sqlite:nested/strata.db', { cwd: directory });
      expect(store).toBeInstanceOf(SqliteEventStore);
      await store.appendToStream('s-1', [
        { id: '0190f0a0-0000-7000-8000-000000000001', type: 't', data: {} },
      ]);
      await store.close();
      const reopened = openEventStore(`sqlite:${join(directory, 'nested', 'strata.db')}`);
      expect(await reopened.streamRevision('s-1')).toBe(0n);
      await reopened.close();
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it.each(['esdb', 'kurrentdb'])(
    'opens an EventStoreDB store for a %s:// URL (over the protocol test server)',
    async (scheme) => {
      const server = await startEsdbTestServer();
      const store = openEventStore(server.connectionString.replace(/^esdb:/, `${scheme}:`));
      try {
        expect(store).toBeInstanceOf(EsdbEventStore);
        await store.appendToStream('s-1', [
          { id: '0190f0a0-0000-7000-8000-000000000002', type: 't', data: {} },
        ]);
        expect(await store.streamRevision('s-1')).toBe(0n);
      } finally {
        await store.close();
        await server.stop();
      }
    },
  );
});
