#!/usr/bin/env node
'use strict';
// Serves the Strata engine (npm start): see apps/engine and the README. Runs the build in dist/
// (rebuilt first when a source is newer: scripts/run-built.js).
require('node:module').enableCompileCache?.();
require('../scripts/run-built.js').runBuilt('apps/engine/src/main', 'Strata engine');
