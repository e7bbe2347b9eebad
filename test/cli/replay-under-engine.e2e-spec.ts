// `strata replay` against a store a whole engine is running on: refused in one line while the
// engine runs, done once it has stopped; and an engine does not start while a replay holds it.
import { join } from 'node:path';
import { holdProjectionsForRebuild } from '@strata/projections';
import { runCli } from '../../apps/cli/src/run-cli';
import { commands } from '../../apps/cli/src/commands';
import { recordingIo } from '../../apps/cli/src/testing-io';
import { startHttpEngine } from '../http/http-harness';

describe('strata replay and a running engine', () => {
  it('refuses while the engine runs on the store, and rebuilds once it has stopped', async () => {
    const engine = await startHttpEngine();
    const storeFile = join(engine.directory, 'strata.db');
    const replay = async () => {
      const io = recordingIo({}, engine.directory);
      return { code: await runCli(['replay', '--store', `sqlite:${storeFile}`], io, commands), io };
    };
    try {
      const refused = await replay();
      expect(refused.code).toBe(1);
      expect(refused.io.err()).toBe(
        `strata replay: an engine is running on ${storeFile} (or another replay is rebuilding it); stop it, then replay: nothing was changed\n`,
      );
    } finally {
      await engine.close({ keepDirectory: true });
    }
    const done = await replay();
    expect(done.code).toBe(0);
    expect(done.io.out()).toMatch(/^rebuilt catalog, audit, search/);

    const rebuild = holdProjectionsForRebuild(storeFile);
    try {
      await expect(startHttpEngine({ directory: engine.directory })).rejects.toThrow(
        'are being rebuilt (strata replay)',
      );
    } finally {
      rebuild?.release();
    }
    const again = await startHttpEngine({ directory: engine.directory });
    await again.close();
  });
});
