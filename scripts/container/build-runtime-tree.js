#!/usr/bin/env node
'use strict';
// Makes the tree the container image runs, from a checkout: the Dockerfile's build stage runs it,
// and test/build/runtime-tree.e2e-spec.ts runs it into a temporary directory, so the image's
// recipe is tested where no Docker engine exists. Steps, in `--out`:
//   1. the checkout's files the build and the engine need (no node_modules, dist, tests, benches);
//   2. the production dependencies only: `npm ci --omit=dev` from the lockfile, or, with
//      `--node-modules <dir>`, a copy of the production packages of an installed node_modules
//      (native modules already built for this Node) checked by `npm prune --omit=dev`, which
//      needs no registry;
//   3. the build: dist/ (scripts/build.js) and the audit viewer (apps/viewer/build.js);
//   4. what only tests use removed (libs/testing, testing folders, specs, fixtures);
//   5. a check that dist/ is up to date for the tree, then dist/frozen.json, which tells
//      bin/engine.js and bin/strata.js to run this build as it is: the image's tree belongs to
//      root (the engine could not rebuild it) and a copy between stages may change file times.
// The sources stay beside dist/, for the source maps.
//   node scripts/container/build-runtime-tree.js --out <dir> [--from <checkout>] [--node-modules <dir>]
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

/** What the runtime tree takes from the checkout (LICENSE goes with every copy). */
const checkoutEntries = [
  'package.json',
  'package-lock.json',
  'LICENSE',
  'tsconfig.json',
  'bin',
  'scripts',
  'apps',
  'libs',
  'prompts',
];

/** Folders never copied from the checkout, at any depth: installs and builds are made anew. */
const skippedDirectories = new Set(['node_modules', 'dist', 'coverage', 'test-artifacts']);

/** Files and folders of the copied tree that only tests, benches and CI use. */
function isTestOnly(name, isDirectory) {
  if (isDirectory) return name === 'testing';
  return (
    /\.(e2e-|browser-)?spec\.ts$/.test(name) ||
    name.endsWith('.jsonl') ||
    name.endsWith('.tgz') ||
    name === 'testing-io.ts' ||
    name === 'check-dependencies.js'
  );
}

function parseArguments(argv) {
  const options = { from: path.resolve(__dirname, '..', '..'), out: undefined, nodeModules: undefined };
  for (let index = 0; index < argv.length; index += 2) {
    const [flag, value] = [argv[index], argv[index + 1]];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    if (flag === '--out') options.out = path.resolve(value);
    else if (flag === '--from') options.from = path.resolve(value);
    else if (flag === '--node-modules') options.nodeModules = path.resolve(value);
    else throw new Error(`unknown option ${flag}`);
  }
  if (options.out === undefined) throw new Error('--out <dir> is required');
  return options;
}

function run(command, args, cwd) {
  const result = spawnSync(command, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.error) throw result.error;
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} exited ${result.status ?? result.signal}`);
  }
}

function copyCheckout(from, out) {
  for (const entry of checkoutEntries) {
    const source = path.join(from, entry);
    if (!fs.existsSync(source)) throw new Error(`the checkout has no ${entry}`);
    fs.cpSync(source, path.join(out, entry), {
      recursive: true,
      preserveTimestamps: true,
      filter: (file) => !skippedDirectories.has(path.basename(file)) || file === source,
    });
  }
}

/** The top-level packages of the lockfile that production needs (`node_modules/<name>`). */
function productionPackagePaths(out) {
  const { packages } = JSON.parse(fs.readFileSync(path.join(out, 'package-lock.json'), 'utf8'));
  return Object.entries(packages)
    .filter(([key, locked]) => /^node_modules\/(@[^/]+\/)?[^/@][^/]*$/.test(key) && locked.dev !== true)
    .map(([key]) => key);
}

function installProductionDependencies(out, nodeModules) {
  if (nodeModules === undefined) {
    run('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund'], out);
    return;
  }
  // only the packages production needs are copied (half of node_modules); npm prune then checks
  // the copy against the lockfile and removes anything of the development tools left in it
  for (const key of productionPackagePaths(out)) {
    const source = path.join(nodeModules, key.slice('node_modules/'.length));
    if (!fs.existsSync(source)) continue; // an optional package of another platform
    fs.cpSync(source, path.join(out, key), { recursive: true, dereference: true, preserveTimestamps: true });
  }
  run('npm', ['prune', '--omit=dev', '--offline', '--no-audit', '--no-fund'], out);
  // npm prune leaves the scope folders of the packages it removed (@jest/) empty behind it
  for (const entry of fs.readdirSync(path.join(out, 'node_modules'))) {
    const scope = path.join(out, 'node_modules', entry);
    if (entry.startsWith('@') && fs.readdirSync(scope).length === 0) fs.rmdirSync(scope);
  }
}

function build(out) {
  run(process.execPath, [path.join(out, 'scripts', 'build.js'), '--quiet'], out);
  run(process.execPath, [path.join(out, 'apps', 'viewer', 'build.js')], out);
}

/** Removes the test-only files of the tree (node_modules and dist/ are left alone). */
function removeTestOnly(directory) {
  for (const entry of fs.readdirSync(directory, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist') continue;
    const entryPath = path.join(directory, entry.name);
    if (isTestOnly(entry.name, entry.isDirectory())) fs.rmSync(entryPath, { recursive: true, force: true });
    else if (entry.isDirectory()) removeTestOnly(entryPath);
  }
}

/** Builds the runtime tree of `from` into `out` (which must not exist or be empty). */
function buildRuntimeTree({ from, out, nodeModules }) {
  if (fs.existsSync(out) && fs.readdirSync(out).length > 0) throw new Error(`${out} is not empty`);
  fs.mkdirSync(out, { recursive: true });
  copyCheckout(from, out);
  installProductionDependencies(out, nodeModules);
  build(out);
  for (const entry of ['apps', 'libs', 'scripts']) removeTestOnly(path.join(out, entry));
  const { staleReason } = require(path.join(out, 'scripts', 'build-sources.js'));
  const stale = staleReason(out);
  if (stale !== undefined) throw new Error(`the runtime tree's build is stale: ${stale}`);
  fs.writeFileSync(
    path.join(out, 'dist', 'frozen.json'),
    `${JSON.stringify({ frozenBy: 'scripts/container/build-runtime-tree.js', frozenAt: new Date().toISOString() })}\n`,
  );
}

if (require.main === module) {
  try {
    const options = parseArguments(process.argv.slice(2));
    buildRuntimeTree(options);
    process.stdout.write(`runtime tree ready in ${options.out}\n`);
  } catch (error) {
    process.stderr.write(`build-runtime-tree: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}

module.exports = { buildRuntimeTree, checkoutEntries };
