#!/usr/bin/env node
'use strict';
// `npm run build` (run by `prepare` on every npm install and npm ci): compiles the engine, the CLI
// and the libraries (scripts/build-sources.js says which files) with swc into dist/, one CommonJS
// file per source at the same path (dist/apps/cli/src/main.js for apps/cli/src/main.ts), with
// its source map. The @strata/<lib> aliases of tsconfig.json are rewritten into relative paths,
// and a relative require of a file that is not compiled (package.json) is pointed back at the
// file in the repository, so dist/ runs without a resolver. A require of anything else that is
// neither compiled nor present (a test helper) fails the build. Each file is written beside its
// place and renamed into it, and dist/build-info.json last, so that two builds at once (test
// workers starting the CLI) leave a whole build. bin/ rebuilds when the sources are newer.
//   node scripts/build.js [--quiet]
const fs = require('node:fs');
const path = require('node:path');
const swc = require('@swc/core');
const {
  repositoryRoot,
  distDirectoryOf,
  buildInfoFileOf,
  listSources,
  outputPathOf,
} = require('./build-sources.js');

/**
 * Packages only some configurations use (EventStoreDB, the Anthropic and OpenAI summarisers, the
 * OpenTelemetry API, touched only once telemetry has started).
 */
const lazyPackages = ['@eventstore/db-client', '@anthropic-ai/sdk', 'openai', '@opentelemetry/api'];

// The options of scripts/register.js and jest.config.js (legacy decorators with metadata for
// Nest), but for the lazy packages.
const swcOptions = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true },
    target: 'es2022',
    keepClassNames: true,
  },
  // The clients of the optional store and summariser providers are required when first used, so an
  // engine on SQLite with the offline summariser never loads them; everything else as the sources.
  module: { type: 'commonjs', lazy: lazyPackages },
  sourceMaps: true,
};

const requirePattern = /\brequire\((["'])([^"']+)\1\)/g;
const aliasPattern = /^@strata\/([a-z-]+)$/;

/** The source file a relative specifier of `fromSource` names, if it is one of the build's. */
function compiledTarget(fromSource, specifier, sources) {
  const base = path.posix.join(path.posix.dirname(fromSource), specifier);
  return [`${base}.ts`, `${base}/index.ts`].find((candidate) => sources.has(candidate));
}

function relativeRequire(fromOutput, toFile) {
  const relativePath = path.relative(path.dirname(fromOutput), toFile).split(path.sep).join('/');
  return relativePath.startsWith('.') ? relativePath : `./${relativePath}`;
}

/** The compiled code with every @strata alias and every require leaving the build rewritten. */
function rewriteRequires(code, source, sources, root) {
  const output = outputPathOf(source, root);
  return code.replace(requirePattern, (whole, quote, specifier) => {
    const alias = aliasPattern.exec(specifier);
    if (alias) {
      const entry = alias[1] === 'engine' ? 'apps/engine/src/index.ts' : `libs/${alias[1]}/src/index.ts`;
      if (!sources.has(entry)) throw new Error(`${source}: ${specifier} is not part of the build`);
      return `require(${quote}${relativeRequire(output, outputPathOf(entry, root))}${quote})`;
    }
    if (specifier.startsWith('@strata/')) throw new Error(`${source}: no such alias ${specifier}`);
    if (!specifier.startsWith('.')) return whole;
    if (compiledTarget(source, specifier, sources) !== undefined) return whole;
    const inRepository = path.join(root, path.dirname(source), specifier);
    if (!fs.existsSync(inRepository)) {
      throw new Error(`${source}: requires ${specifier}, which is neither built nor in the repository`);
    }
    return `require(${quote}${relativeRequire(output, inRepository)}${quote})`;
  });
}

/** swc's output for one source; a source swc cannot read fails with one line naming it. */
function compile(file, source, output) {
  try {
    return swc.transformSync(fs.readFileSync(file, 'utf8'), {
      ...swcOptions,
      filename: file,
      sourceFileName: path.relative(path.dirname(output), file).split(path.sep).join('/'),
    });
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    const problem = /^\s*x\s+(.+)$/m.exec(text)?.[1] ?? text.split('\n').find((line) => line.trim() !== '');
    throw new Error(`${source}: ${problem?.trim() ?? 'swc could not compile it'}`);
  }
}

function writeAtomically(file, contents) {
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, contents);
  fs.renameSync(temporary, file);
}

/** Compiles every source of `root` into its dist/; returns how many files and how long it took. */
function build(root = repositoryRoot) {
  const started = process.hrtime.bigint();
  // The start is the modification time of a file written now: the clock the sources' times come
  // from (the file system's, coarser than Date.now()), so a source saved before it is never newer.
  fs.mkdirSync(distDirectoryOf(root), { recursive: true });
  const marker = path.join(distDirectoryOf(root), `.build-started-${process.pid}`);
  fs.writeFileSync(marker, '');
  const startedAtMs = fs.statSync(marker).mtimeMs;
  fs.rmSync(marker);
  const sourceList = listSources(root);
  const sources = new Set(sourceList);
  for (const source of sourceList) {
    const file = path.join(root, source);
    const output = outputPathOf(source, root);
    const { code, map } = compile(file, source, output);
    fs.mkdirSync(path.dirname(output), { recursive: true });
    const mapName = `${path.basename(output)}.map`;
    writeAtomically(
      output,
      `${rewriteRequires(code, source, sources, root)}\n//# sourceMappingURL=${mapName}\n`,
    );
    if (map !== undefined) writeAtomically(`${output}.map`, map);
  }
  fs.mkdirSync(distDirectoryOf(root), { recursive: true });
  writeAtomically(
    buildInfoFileOf(root),
    `${JSON.stringify({ startedAtMs, sources: sourceList }, null, 2)}\n`,
  );
  return { files: sourceList.length, seconds: Number(process.hrtime.bigint() - started) / 1e9 };
}

if (require.main === module) {
  try {
    const { files, seconds } = build();
    if (!process.argv.includes('--quiet')) {
      process.stdout.write(`built ${files} files into dist/ in ${seconds.toFixed(1)} s\n`);
    }
  } catch (error) {
    process.stderr.write(`build failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}

module.exports = { build };
