'use strict';
/**
 * `npm start`: builds `dist/` only if a source changed since the last successful build
 * (scripts/build.js), then runs the API in this same process, which saves starting a second Node.
 */
const { buildIfStale } = require('./build');

if (buildIfStale()) require('../dist/apps/api/src/main.js');
else process.exitCode = 1;
