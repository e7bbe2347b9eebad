'use strict';
// Runs the TypeScript sources directly: compiles each .ts file with swc when it is first
// required (decorator metadata kept for Nest) and maps the @strata/<lib> aliases of
// tsconfig.json onto libs/<lib>/src, and @strata/engine onto apps/engine/src. Used by
// bin/run-ts.js, worker threads started on a .ts module and the benchmarks; Jest uses @swc/jest.
// `npm start` and `strata` run the build in dist/ instead (scripts/build.js, decision 0015).
const Module = require('node:module');
const path = require('node:path');
const fs = require('node:fs');
const swc = require('@swc/core');

const root = path.resolve(__dirname, '..');
const aliasPattern = /^@strata\/([a-z-]+)$/;

const originalResolve = Module._resolveFilename;
Module._resolveFilename = function resolveStrataAlias(request, parent, ...rest) {
  const match = aliasPattern.exec(request);
  if (match) {
    const entry = match[1] === 'engine' ? ['apps', 'engine'] : ['libs', match[1]];
    return originalResolve.call(this, path.join(root, ...entry, 'src', 'index.ts'), parent, ...rest);
  }
  return originalResolve.call(this, request, parent, ...rest);
};

const swcOptions = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true },
    target: 'es2022',
    keepClassNames: true,
  },
  module: { type: 'commonjs' },
  sourceMaps: 'inline',
};

Module._extensions['.ts'] = function compileTypeScript(module, filename) {
  const source = fs.readFileSync(filename, 'utf8');
  const { code } = swc.transformSync(source, { ...swcOptions, filename });
  module._compile(code, filename);
};

process.setSourceMapsEnabled(true);
