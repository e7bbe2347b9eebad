'use strict';
// What `npm run build` compiles and how to tell that dist/ is older than it. Kept free of any
// dependency so that bin/engine.js and bin/strata.js can check the build before loading anything:
// the sources are every TypeScript file of apps/engine/src, apps/cli/src and libs/<lib>/src
// (libs/testing, testing folders and specs left out); dist/build-info.json records them and the
// time the build started reading them. `root` is the repository (another one in tests).
const fs = require('node:fs');
const path = require('node:path');

const repositoryRoot = path.resolve(__dirname, '..');
/** Files whose change makes every built file out of date. */
const buildInputs = [path.join(__dirname, 'build.js'), __filename];

function sourceDirectories(root) {
  const libs = path.join(root, 'libs');
  const libraries = fs.existsSync(libs)
    ? fs
        .readdirSync(libs, { withFileTypes: true })
        .filter((entry) => entry.isDirectory() && entry.name !== 'testing')
        .map((entry) => `libs/${entry.name}/src`)
    : [];
  return ['apps/engine/src', 'apps/cli/src', ...libraries].filter((directory) =>
    fs.existsSync(path.join(root, directory)),
  );
}

function isBuiltSource(name) {
  return (
    name.endsWith('.ts') && !name.endsWith('.d.ts') && !name.includes('spec') && name !== 'testing-io.ts'
  );
}

/** Every source file of the build, relative to the repository root with `/`, sorted. */
function listSources(root = repositoryRoot) {
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
  for (const directory of sourceDirectories(root)) walk(directory);
  return found.sort();
}

function distDirectoryOf(root = repositoryRoot) {
  return path.join(root, 'dist');
}

function buildInfoFileOf(root = repositoryRoot) {
  return path.join(distDirectoryOf(root), 'build-info.json');
}

/** dist/<source path> with `.js` for `.ts`. */
function outputPathOf(source, root = repositoryRoot) {
  return path.join(distDirectoryOf(root), source.replace(/\.ts$/, '.js'));
}

function readBuildInfo(root) {
  try {
    const info = JSON.parse(fs.readFileSync(buildInfoFileOf(root), 'utf8'));
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
function staleReason(root = repositoryRoot) {
  const info = readBuildInfo(root);
  if (info === undefined) return 'dist/ has no complete build';
  for (const file of buildInputs) {
    if (fs.statSync(file).mtimeMs > info.startedAtMs) {
      return `${path.relative(repositoryRoot, file)} changed after the last build`;
    }
  }
  const sources = listSources(root);
  for (const source of sources) {
    if (fs.statSync(path.join(root, source)).mtimeMs > info.startedAtMs) {
      return `${source} changed after the last build`;
    }
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

module.exports = { repositoryRoot, distDirectoryOf, buildInfoFileOf, listSources, outputPathOf, staleReason };
