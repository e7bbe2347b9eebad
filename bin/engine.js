#!/usr/bin/env node
'use strict';
// Serves the Strata engine (npm start): see apps/engine and the README.
require('../scripts/register.js');
require('../apps/engine/src/main.ts');
