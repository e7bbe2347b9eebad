#!/usr/bin/env node
'use strict';
// The dependency rule of DESIGN.md decision 1 and STYLE.md habit 11, checked on every `npm test`:
// - libs/session is pure: it imports only its own files and zod, and never reads the clock or randomness;
// - libs/client (the HTTP client) depends on Node only: its own files and node: built-ins, no Nest, no lib;
//   what its browser entry (libs/client/src/browser.ts, @strata/client/browser) reaches imports
//   no node: built-in either, so a browser bundle can take it;
// - apps/viewer (the audit viewer, bundled for the browser) imports its own files and
//   @strata/client/browser only: no Nest, no other lib, no engine;
// - libs never import apps, and no lib imports another through a relative path (only via @strata/<lib>);
// - the store's libraries know no sessions (LIBS_KEPT_APART): libs/event-store and libs/integrity
//   import neither @strata/session nor @strata/session-files, their specs included; the event
//   store's sources do not import @strata/integrity (its tests may, to verify what it wrote);
// - an app reaches another app only through its public entry point (@strata/engine), never by path;
// - apps/engine is built in floors (ENGINE_FLOORS, lowest first): a file imports only folders on
//   floors below its own, so no import runs back up and no two folders depend on each other.
//   A use case's slice (apps/engine/src/sessions/<slice>/) counts as a folder of its own, so two
//   slices on one floor do not import each other (decision 0013).
//   Specs are exempt from the floors (they assemble the engine they test), not from the rest.
//   node scripts/check-dependencies.js [--root <repository>]
const fs = require('node:fs');
const path = require('node:path');

/** The top-level folders of apps/engine/src, lowest floor first; '.' is the files at its root. */
const ENGINE_FLOORS = [
  ['shared'],
  ['observability'],
  ['tenancy'],
  ['config', 'settings', 'hooks', 'startup'],
  ['summarizers', 'anchors'],
  ['session-streams'],
  ['api'],
  ['events-stream'],
  ['read-side'],
  ['attempts'],
  [
    'sessions/start-session',
    'sessions/set-label',
    'sessions/session-lease',
    'sessions/compact-session',
    'sessions/navigate-session',
    'sessions/abort-compaction',
    'sessions/erase-session',
    'sessions/session-files',
  ],
  ['sagas'],
  ['sessions/append-entries', 'sessions/read-sessions'],
  ['sessions'],
  ['ui', 'health'],
  ['http'],
  ['.'],
];

/** The folder of apps/engine/src whose files are use-case slices, each a floor entry of its own. */
const SLICES_FOLDER = 'sessions';

/**
 * Libraries a library must not import: `always` (specs included; the store knows no sessions),
 * `outsideTests` (test files, whose names hold `spec`, may: they check what the sources wrote).
 */
const LIBS_KEPT_APART = {
  'event-store': {
    always: ['@strata/session', '@strata/session-files'],
    outsideTests: ['@strata/integrity'],
  },
  integrity: { always: ['@strata/session', '@strata/session-files'], outsideTests: [] },
};
const testFilePattern = /spec.*\.ts$/;
/** The one entry of a library the browser bundle of apps/viewer may import. */
const VIEWER_ALLOWED_IMPORTS = new Set(['@strata/client/browser']);
const CLIENT_BROWSER_ENTRY = path.join('libs', 'client', 'src', 'browser.ts');

const importPattern =
  /(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|require\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s+['"]([^'"]+)['"]/gm;
const impurePattern =
  /\bDate\.now\(|\bnew Date\(\s*\)|\bMath\.random\(|\brandomUUID\(|\bperformance\.now\(|\bprocess\.|\bsetTimeout\(|\bsetInterval\(/;
const sessionAllowedPackages = new Set(['zod']);
const specPattern = /\.(e2e-|browser-)?spec\.ts$/;

function sourceFiles(directory) {
  if (!fs.existsSync(directory)) return [];
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((item) => {
    const full = path.join(directory, item.name);
    if (item.isDirectory()) return item.name === 'node_modules' ? [] : sourceFiles(full);
    return item.name.endsWith('.ts') ? [full] : [];
  });
}

function importsOf(file) {
  const text = fs.readFileSync(file, 'utf8');
  return [...text.matchAll(importPattern)].map((match) => match[1] ?? match[2] ?? match[3] ?? match[4]);
}

function packageOf(specifier) {
  return specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0];
}

function checkLibs(root, violations) {
  const libsDirectory = path.join(root, 'libs');
  for (const lib of fs.existsSync(libsDirectory) ? fs.readdirSync(libsDirectory) : []) {
    const libRoot = path.join(libsDirectory, lib);
    for (const file of sourceFiles(libRoot)) {
      const relativeFile = path.relative(root, file);
      const isSpec = specPattern.test(file);
      for (const specifier of importsOf(file)) {
        if (specifier.startsWith('.')) {
          const target = path.resolve(path.dirname(file), specifier);
          if (target.startsWith(path.join(root, 'apps')))
            violations.push(`${relativeFile}: a lib imports an app (${specifier})`);
          else if (!target.startsWith(libRoot + path.sep))
            violations.push(
              `${relativeFile}: reaches into another lib by path (${specifier}); import @strata/<lib>`,
            );
          continue;
        }
        if (specifier === '@strata/engine')
          violations.push(`${relativeFile}: a lib imports an app (${specifier})`);
        const apart = LIBS_KEPT_APART[lib];
        if (
          apart !== undefined &&
          (apart.always.includes(specifier) ||
            (!testFilePattern.test(path.basename(file)) && apart.outsideTests.includes(specifier)))
        )
          violations.push(`${relativeFile}: libs/${lib} must not import ${specifier}`);
        if (lib === 'client' && !isSpec && !specifier.startsWith('node:')) {
          violations.push(`${relativeFile}: libs/client depends on Node only but imports '${specifier}'`);
        }
        if (lib !== 'session' || isSpec) continue;
        if (!sessionAllowedPackages.has(packageOf(specifier))) {
          violations.push(`${relativeFile}: libs/session must stay pure but imports '${specifier}'`);
        }
      }
      if (lib === 'session' && !isSpec) {
        fs.readFileSync(file, 'utf8')
          .split('\n')
          .forEach((line, index) => {
            if (impurePattern.test(line) && !line.trim().startsWith('//') && !line.trim().startsWith('*')) {
              violations.push(
                `${relativeFile}:${index + 1}: libs/session must not read the clock, randomness or the process: ${line.trim()}`,
              );
            }
          });
      }
    }
  }
}

/**
 * Whether a file of apps/viewer may not import `specifier`: its sources only its own files and
 * @strata/client/browser; its specs also test packages (fast-check), still no lib, Nest or engine.
 */
function viewerMayNotImport(specifier, isSpec) {
  if (specifier.startsWith('.') || VIEWER_ALLOWED_IMPORTS.has(specifier)) return false;
  if (!isSpec) return true;
  return (
    specifier.startsWith('@strata/') || specifier.startsWith('@nestjs/') || specifier.startsWith('node:')
  );
}

/** The file a relative import names (`./name`, `./name.js` or `./name/index`), if it exists. */
function resolveRelative(fromFile, specifier) {
  const target = path.resolve(path.dirname(fromFile), specifier.replace(/\.js$/, ''));
  return [`${target}.ts`, path.join(target, 'index.ts'), target].find(
    (candidate) => fs.existsSync(candidate) && fs.statSync(candidate).isFile(),
  );
}

/** The client's browser entry and every file it reaches import no node: built-in and no package. */
function checkClientBrowserEntry(root, violations) {
  const entry = path.join(root, CLIENT_BROWSER_ENTRY);
  if (!fs.existsSync(entry)) return;
  const seen = new Set();
  const pending = [entry];
  while (pending.length > 0) {
    const file = pending.pop();
    if (seen.has(file)) continue;
    seen.add(file);
    for (const specifier of importsOf(file)) {
      if (!specifier.startsWith('.')) {
        violations.push(
          `${path.relative(root, file)}: reached from ${CLIENT_BROWSER_ENTRY}, which a browser bundles, but imports '${specifier}'`,
        );
        continue;
      }
      const target = resolveRelative(file, specifier);
      if (target !== undefined) pending.push(target);
    }
  }
}

/**
 * The floor of a path inside apps/engine/src, by its top-level folder ('.' for a root file), or
 * for a use case by its slice (`sessions/<slice>`).
 */
function engineFloorOf(engineRoot, absolutePath) {
  const relative = path.relative(engineRoot, absolutePath);
  const [first, ...rest] = relative.split(path.sep);
  const folder =
    rest.length === 0 ? '.' : first === SLICES_FOLDER && rest.length > 1 ? `${first}/${rest[0]}` : first;
  const floor = ENGINE_FLOORS.findIndex((folders) => folders.includes(folder));
  return { folder, floor };
}

function checkApps(root, violations) {
  const appsDirectory = path.join(root, 'apps');
  const engineRoot = path.join(appsDirectory, 'engine', 'src');
  for (const app of fs.existsSync(appsDirectory) ? fs.readdirSync(appsDirectory) : []) {
    const appRoot = path.join(appsDirectory, app);
    for (const file of sourceFiles(appRoot)) {
      const relativeFile = path.relative(root, file);
      const inEngine = file.startsWith(engineRoot + path.sep);
      const source = inEngine ? engineFloorOf(engineRoot, file) : undefined;
      if (source !== undefined && source.floor < 0) {
        violations.push(
          `${relativeFile}: apps/engine/src/${source.folder} is on no floor; add it to ENGINE_FLOORS`,
        );
        continue;
      }
      for (const specifier of importsOf(file)) {
        if (app === 'viewer' && viewerMayNotImport(specifier, specPattern.test(file))) {
          violations.push(
            `${relativeFile}: apps/viewer runs in the browser and imports only its own files and @strata/client/browser, not '${specifier}'`,
          );
        }
        if (specifier === '@strata/engine' && inEngine) {
          violations.push(`${relativeFile}: the engine imports its own public entry point (${specifier})`);
        }
        if (!specifier.startsWith('.')) continue;
        const target = path.resolve(path.dirname(file), specifier);
        if (target === path.join(root, 'package.json')) continue;
        if (!target.startsWith(appRoot + path.sep)) {
          violations.push(
            `${relativeFile}: reaches outside ${path.relative(root, appRoot)} by path (${specifier}); use the app's public entry point (@strata/engine)`,
          );
          continue;
        }
        if (source === undefined || specPattern.test(file)) continue;
        const imported = engineFloorOf(engineRoot, target);
        if (imported.folder === source.folder) continue;
        if (imported.floor < 0 || imported.floor >= source.floor) {
          const where =
            imported.floor === source.floor ? 'a folder on its own floor' : 'a floor above its own';
          violations.push(
            `${relativeFile}: ${source.folder} imports ${imported.folder}, ${where} (${specifier}); see ENGINE_FLOORS in scripts/check-dependencies.js`,
          );
        }
      }
    }
  }
}

/** Every breach of the rule in the repository at `root`, one line each. */
function checkDependencies(root) {
  const violations = [];
  checkLibs(root, violations);
  checkClientBrowserEntry(root, violations);
  checkApps(root, violations);
  return violations;
}

function main() {
  const rootFlag = process.argv.indexOf('--root');
  const root =
    rootFlag >= 0 ? path.resolve(process.argv[rootFlag + 1] ?? '.') : path.resolve(__dirname, '..');
  const violations = checkDependencies(root);
  if (violations.length > 0) {
    process.stderr.write(
      `Dependency rule broken (${violations.length}):\n${violations.map((v) => `  - ${v}`).join('\n')}\n`,
    );
    process.exit(1);
  }
  process.stdout.write(
    `dependency rule: libs/session is pure, libs/client depends on Node only (its browser entry on nothing), apps/viewer on @strata/client/browser only, libs/event-store and libs/integrity know no sessions, the event store's sources no integrity, no lib imports an app, apps meet through public entry points, apps/engine's ${ENGINE_FLOORS.length} floors import only downwards\n`,
  );
}

if (require.main === module) main();
module.exports = { ENGINE_FLOORS, LIBS_KEPT_APART, checkDependencies };
