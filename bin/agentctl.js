#!/usr/bin/env node
// Entry shim: the CLI is compiled to dist/ by `npm run build` (run by `npm ci` through `prepare`).
import '../dist/core/cli/main.js';
