// End to end over real HTTP on EventStoreDB (through the protocol test server): audited erasure
// (issue 14) by two engines on one store, each with its own projections file. The erasure is a
// hard delete there, so an erased session id cannot be written again, even when asked for.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEsdbTestServer } from '@strata/testing';
import { describeErasureByTwoEngines } from './erasure-checks';

describeErasureByTwoEngines('one EventStoreDB', async () => {
  const directory = mkdtempSync(join(tmpdir(), 'strata-erasure-esdb-'));
  const server = await startEsdbTestServer();
  return {
    directory,
    environmentOf: (engineId) => ({
      STRATA_STORE: server.connectionString,
      STRATA_PROJECTIONS_DB: join(directory, `projections-${engineId}.db`),
    }),
    reimport: 'refused',
    stop: async () => {
      await server.stop();
      rmSync(directory, { recursive: true, force: true });
    },
  };
});
