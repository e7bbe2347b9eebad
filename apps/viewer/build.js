#!/usr/bin/env node
'use strict';
// Builds the audit viewer into apps/viewer/dist (gitignored), which the engine serves at /ui:
// src/main.ts and everything it imports (@strata/client/browser included) bundled by esbuild into
// one ES module, main.js, with its source map, beside the page and stylesheet of static/. Run by
// `npm run build:viewer` and by `prepare` on every `npm install` and `npm ci`; the browser tests
// build it again before they start an engine. The build is written beside dist and renamed into
// place, so an engine or a test never reads half of one.
//   node apps/viewer/build.js [--outdir <directory>]
const esbuild = require('esbuild');
const fs = require('node:fs');
const path = require('node:path');

const VIEWER_ROOT = __dirname;
const VIEWER_DIST = path.join(VIEWER_ROOT, 'dist');
const STATIC_DIRECTORY = path.join(VIEWER_ROOT, 'static');

/** Bundles the viewer into `outdir` (apps/viewer/dist by default); resolves to that directory. */
async function buildViewer({ outdir = VIEWER_DIST, logLevel = 'warning' } = {}) {
  const target = path.resolve(outdir);
  const staging = `${target}.building-${process.pid}-${Date.now()}`;
  fs.rmSync(staging, { recursive: true, force: true });
  fs.mkdirSync(staging, { recursive: true });
  try {
    await esbuild.build({
      entryPoints: [path.join(VIEWER_ROOT, 'src', 'main.ts')],
      outfile: path.join(staging, 'main.js'),
      tsconfig: path.join(VIEWER_ROOT, 'tsconfig.json'),
      bundle: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      sourcemap: 'linked',
      charset: 'utf8',
      legalComments: 'none',
      logLevel,
    });
    for (const name of fs.readdirSync(STATIC_DIRECTORY)) {
      fs.copyFileSync(path.join(STATIC_DIRECTORY, name), path.join(staging, name));
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
  const outdir = flag >= 0 ? path.resolve(process.argv[flag + 1] ?? VIEWER_DIST) : VIEWER_DIST;
  buildViewer({ outdir }).then(
    (built) => process.stdout.write(`audit viewer built in ${path.relative(process.cwd(), built) || '.'}\n`),
    (error) => {
      process.stderr.write(
        `the audit viewer did not build: ${error instanceof Error ? error.message : String(error)}\n`,
      );
      process.exitCode = 1;
    },
  );
}

if (require.main === module) main();
module.exports = { VIEWER_DIST, buildViewer };
