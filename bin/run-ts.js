#!/usr/bin/env node
'use strict';
// Runs one TypeScript entry point of the repository: `node bin/run-ts.js <file.ts> [args]`.
require('../scripts/register.js');
const path = require('node:path');
const entry = process.argv[2];
if (!entry) {
  process.stderr.write('usage: node bin/run-ts.js <file.ts> [args...]\n');
  process.exit(2);
}
process.argv.splice(1, 2, path.resolve(entry));
require(path.resolve(entry));
