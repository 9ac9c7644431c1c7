#!/usr/bin/env node
// The `fundus` command: runs the compiled CLI (npm run build writes dist/).
import { main } from '../dist/services/cli/main.js';
import { printableMessage } from '../dist/services/cli/printable.js';

main(process.argv.slice(2)).then(
  (code) => { if (typeof code === 'number') process.exitCode = code; },
  (error) => { console.error(`fundus: ${printableMessage(error instanceof Error ? error.message : String(error))}`); process.exitCode = 1; },
);
