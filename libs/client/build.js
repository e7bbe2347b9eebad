#!/usr/bin/env node
'use strict';
// Builds the @strata/client package into libs/client/dist (gitignored), what `npm pack` in
// libs/client ships: each module of src/ (specs left out) compiled by swc twice, to CommonJS in
// dist/cjs and to ES modules in dist/esm (relative imports ending in `.js`, as Node's ESM loader
// wants), each folder with a package.json naming its module type and the declarations tsc emits
// for it. Declarations tagged `@internal` (the transport's helpers) are left out, so the public
// ones name no DOM or Node type a program without them lacks (src/platform-types.ts).
// Run by `npm run build:client`, by `prepack` in libs/client, and by the package's test
// (test/client-package). The build is written beside dist and renamed into place, so a pack or a
// test never reads half of one.
//   node libs/client/build.js [--outdir <directory>]
const swc = require('@swc/core');
const ts = require('typescript');
const fs = require('node:fs');
const path = require('node:path');

const CLIENT_ROOT = __dirname;
const CLIENT_SOURCES = path.join(CLIENT_ROOT, 'src');
const CLIENT_DIST = path.join(CLIENT_ROOT, 'dist');
/** The modules a program may import: `@strata/client` and `@strata/client/browser`. */
const ENTRY_POINTS = ['index.ts', 'browser.ts'];
const FORMATS = [
  { folder: 'cjs', moduleType: 'commonjs', swcModule: 'commonjs' },
  { folder: 'esm', moduleType: 'module', swcModule: 'es6' },
];

function sourceModules() {
  return fs
    .readdirSync(CLIENT_SOURCES)
    .filter((name) => name.endsWith('.ts') && !name.endsWith('.d.ts') && !/spec/.test(name))
    .sort();
}

/** `./name` becomes `./name.js` in what an ES module imports or re-exports. */
function withJsExtensions(text) {
  return text.replace(
    /(\bfrom\s*|\bimport\s*\(\s*)(['"])(\.{1,2}\/[^'"]+?)(?<!\.js)\2/g,
    (_match, before, quote, specifier) => `${before}${quote}${specifier}.js${quote}`,
  );
}

function compileModules(format, directory) {
  for (const name of sourceModules()) {
    const { code } = swc.transformFileSync(path.join(CLIENT_SOURCES, name), {
      swcrc: false,
      configFile: false,
      sourceMaps: false,
      jsc: {
        parser: { syntax: 'typescript' },
        target: 'es2022',
        keepClassNames: true,
        externalHelpers: false,
      },
      module: { type: format.swcModule },
    });
    const text = format.moduleType === 'module' ? withJsExtensions(code) : code;
    fs.writeFileSync(path.join(directory, name.replace(/\.ts$/, '.js')), text);
  }
}

/** The declarations of the entry points and what they reach, as `{ name: text }`; throws on a type error. */
function declarations() {
  const program = ts.createProgram(
    ENTRY_POINTS.map((name) => path.join(CLIENT_SOURCES, name)),
    {
      declaration: true,
      emitDeclarationOnly: true,
      stripInternal: true,
      strict: true,
      noUncheckedIndexedAccess: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      lib: ['lib.es2022.d.ts'],
      types: ['node'],
      typeRoots: [path.join(CLIENT_ROOT, '..', '..', 'node_modules', '@types')],
      skipLibCheck: true,
      rootDir: CLIENT_SOURCES,
      outDir: '/declarations',
    },
  );
  const emitted = {};
  const result = program.emit(undefined, (fileName, text) => {
    emitted[path.basename(fileName)] = text;
  });
  const problems = [...ts.getPreEmitDiagnostics(program), ...result.diagnostics];
  if (problems.length > 0) {
    throw new Error(
      ts.formatDiagnostics(problems, {
        getCanonicalFileName: (name) => name,
        getCurrentDirectory: () => CLIENT_ROOT,
        getNewLine: () => '\n',
      }),
    );
  }
  return emitted;
}

/** Builds the package into `outdir` (libs/client/dist by default); resolves to that directory. */
function buildClient({ outdir = CLIENT_DIST } = {}) {
  const target = path.resolve(outdir);
  const staging = `${target}.building-${process.pid}-${Date.now()}`;
  fs.rmSync(staging, { recursive: true, force: true });
  try {
    const types = declarations();
    for (const format of FORMATS) {
      const directory = path.join(staging, format.folder);
      fs.mkdirSync(directory, { recursive: true });
      fs.writeFileSync(
        path.join(directory, 'package.json'),
        `${JSON.stringify({ type: format.moduleType }, null, 2)}\n`,
      );
      compileModules(format, directory);
      for (const [name, text] of Object.entries(types)) {
        fs.writeFileSync(
          path.join(directory, name),
          format.moduleType === 'module' ? withJsExtensions(text) : text,
        );
      }
    }
    fs.rmSync(target, { recursive: true, force: true });
    try {
      fs.renameSync(staging, target);
    } catch (error) {
      // Another build (a parallel test worker) put its output in place first: the same files.
      if (!fs.existsSync(target)) throw error;
    }
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
  return target;
}

function main() {
  const flag = process.argv.indexOf('--outdir');
  const outdir = flag >= 0 ? path.resolve(process.argv[flag + 1] ?? CLIENT_DIST) : CLIENT_DIST;
  try {
    const built = buildClient({ outdir });
    process.stdout.write(`@strata/client built in ${path.relative(process.cwd(), built) || '.'}\n`);
  } catch (error) {
    process.stderr.write(
      `@strata/client did not build: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exitCode = 1;
  }
}

if (require.main === module) main();
module.exports = { CLIENT_DIST, buildClient };
