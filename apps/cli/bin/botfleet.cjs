#!/usr/bin/env node
// The `botfleet` command. Compiled code when started with the botfleet-dist condition
// (`node --conditions=botfleet-dist apps/cli/dist/main.js`); here, the TypeScript source through
// tsx, so the command works straight from a checkout.
'use strict';
require('tsx/cjs');
require('../src/main.ts');
