'use strict';
// What `npm run build` compiles and how to tell that dist/ is older than it. Kept free of any
// dependency so that bin/engine.js and bin/strata.js can check the build before loading anything:
// the sources are every TypeScript file of apps/engine/src, apps/cli/src and libs/<lib>/src
// (libs/testing, testing folders and specs left out); dist/build-info.json records them and the
// time the build started reading them.
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const distDirectory = path.join(root, 'dist');
const buildInfoFile = path.join(distDirectory, 'build-info.json');
/** Files whose change makes every built file out of date. */
const buildInputs = ['scripts/build.js', 'scripts/build-sources.js'];

function sourceDirectories() {
  const libraries = fs
    .readdirSync(path.join(root, 'libs'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && entry.name !== 'testing')
    .map((entry) => path.join('libs', entry.name, 'src'));
  return [path.join('apps', 'engine', 'src'), path.join('apps', 'cli', 'src'), ...libraries];
}

function isBuiltSource(name) {
  return (
    name.endsWith('.ts') && !name.endsWith('.d.ts') && !name.includes('spec') && name !== 'testing-io.ts'
  );
}

/** Every source file of the build, relative to the repository root with `/`, sorted. */
function listSources() {
  const found = [];
  const walk = (relativeDirectory) => {
    for (const entry of fs.readdirSync(path.join(root, relativeDirectory), { withFileTypes: true })) {
      const relativePath = `${relativeDirectory}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name !== 'testing') walk(relativePath);
      } else if (isBuiltSource(entry.name)) {
        found.push(relativePath);
      }
    }
  };
  for (const directory of sourceDirectories()) walk(directory.split(path.sep).join('/'));
  return found.sort();
}

/** dist/<source path> with `.js` for `.ts`. */
function outputPathOf(source) {
  return path.join(distDirectory, source.replace(/\.ts$/, '.js'));
}

function readBuildInfo() {
  try {
    const info = JSON.parse(fs.readFileSync(buildInfoFile, 'utf8'));
    if (typeof info.startedAtMs === 'number' && Array.isArray(info.sources)) return info;
  } catch {
    // no build, or one cut short: treated as missing
  }
  return undefined;
}

/**
 * Why dist/ cannot be run as it is (one line), or undefined when it is up to date: missing, a
 * source or the build script changed after the build started, or a source added or removed.
 */
function staleReason() {
  const info = readBuildInfo();
  if (info === undefined) return 'dist/ has no complete build';
  const sources = listSources();
  for (const file of [...buildInputs, ...sources]) {
    if (fs.statSync(path.join(root, file)).mtimeMs > info.startedAtMs)
      return `${file} changed after the last build`;
  }
  const built = new Set(info.sources);
  const added = sources.find((source) => !built.has(source));
  if (added !== undefined) return `${added} is not in the last build`;
  if (built.size !== sources.length) {
    const current = new Set(sources);
    return `${info.sources.find((source) => !current.has(source))} was removed since the last build`;
  }
  return undefined;
}

module.exports = { root, distDirectory, buildInfoFile, buildInputs, listSources, outputPathOf, staleReason };
