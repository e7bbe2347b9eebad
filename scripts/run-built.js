'use strict';
// Runs one entry point of the build in dist/ (bin/engine.js, bin/strata.js). dist/ is never run
// stale: when a source, or the build itself, changed after the last build (or a source was added
// or removed), it is rebuilt first, with one line on stderr saying why; a rebuild that fails is one
// line and exit code 1. The sources are what the tests and bin/run-ts.js run (scripts/register.js).
// A frozen build (dist/frozen.json: the container image's runtime tree, which is read-only and
// whose files' times a copy may change) is run as it is, never rebuilt.
const fs = require('node:fs');
const path = require('node:path');
const { repositoryRoot, distDirectoryOf, staleReason } = require('./build-sources.js');

/**
 * Requires dist/<entry>.js of `root` (`entry` is the source path without `.ts`), rebuilt first if
 * stale; `command` names the program in its messages.
 */
function runBuilt(entry, command, root = repositoryRoot) {
  const frozen = fs.existsSync(path.join(distDirectoryOf(root), 'frozen.json'));
  const reason = frozen ? undefined : staleReason(root);
  if (reason !== undefined) {
    process.stderr.write(`${command}: ${reason}; building dist/ again (npm run build)\n`);
    try {
      require('./build.js').build(root);
    } catch (error) {
      process.stderr.write(
        `${command}: the build failed, nothing was run: ${error instanceof Error ? error.message : String(error)}\n`,
      );
      process.exit(1);
    }
  }
  require(path.join(distDirectoryOf(root), `${entry}.js`));
}

module.exports = { runBuilt };
