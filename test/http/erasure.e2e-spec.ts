// End to end over real HTTP: audited erasure (issue 14) by two engines on one SQLite file, where
// an erased session id can be imported again when asked for explicitly.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeErasureByTwoEngines } from './erasure-checks';

describeErasureByTwoEngines('one SQLite file', () => {
  const directory = mkdtempSync(join(tmpdir(), 'strata-erasure-'));
  return Promise.resolve({
    directory,
    environmentOf: () => ({}),
    reimport: 'revives',
    stop: () => Promise.resolve(rmSync(directory, { recursive: true, force: true })),
  });
});
