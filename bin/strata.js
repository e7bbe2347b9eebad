#!/usr/bin/env node
'use strict';
// The `strata` command line: see apps/cli and the README.
require('../scripts/register.js');
require('../apps/cli/src/main.ts');
