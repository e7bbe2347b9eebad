'use strict';
// Jest 30 with @swc/jest: Nest 12 and uuid ship ESM only, so swc also transpiles them and the
// few ESM packages Nest pulls in (Node 20.19+ requires them itself; Jest's loader does not). Type checking is `tsc --noEmit` (npm run typecheck).
const swcConfig = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true },
    target: 'es2022',
    keepClassNames: true,
  },
  module: { type: 'commonjs' },
};

const esmOnlyPackages = [
  '@nestjs',
  'file-type',
  'load-esm',
  'uid',
  'strtok3',
  'token-types',
  'peek-readable',
  '@tokenizer',
  'uint8array-extras',
  'uuid',
];

module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/libs', '<rootDir>/apps', '<rootDir>/test', '<rootDir>/scripts'],
  testMatch: ['**/*.spec.ts', '**/*.e2e-spec.ts', '**/*.browser-spec.ts'],
  transform: {
    '^.+\\.(t|j|mj)s$': ['@swc/jest', swcConfig],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${esmOnlyPackages.join('|')})/)`],
  moduleNameMapper: {
    // The viewer's browser modules import each other as `./name.js` (what the browser loads).
    '^(\\.{1,2}/.*)\\.js$': '$1',
    '^@strata/engine$': '<rootDir>/apps/engine/src/index.ts',
    '^@strata/client/browser$': '<rootDir>/libs/client/src/browser.ts',
    '^@strata/([a-z-]+)$': '<rootDir>/libs/$1/src/index.ts',
  },
  moduleFileExtensions: ['ts', 'js', 'mjs', 'json'],
  // The HTTP end-to-end specs check every answer against the OpenAPI document (test/http/openapi-conformance).
  setupFilesAfterEnv: ['<rootDir>/test/http/openapi-conformance/jest-setup.ts'],
  testTimeout: 30000,
  // One worker per core. Jest's default (one fewer) runs a 2-core machine's suite in a single
  // process, where most of the time is spent waiting on engines, child processes and browsers:
  // two workers took the quiet suite's Jest part from 672 s to 357-392 s (README, Quickstart).
  maxWorkers: '100%',
};
