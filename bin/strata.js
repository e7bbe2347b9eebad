#!/usr/bin/env node
'use strict';
// The `strata` command line: see apps/cli and the README. Runs the build in dist/ (rebuilt first
// when a source is newer: scripts/run-built.js).
require('node:module').enableCompileCache?.();
require('../scripts/run-built.js').runBuilt('apps/cli/src/main', 'strata');
