#!/usr/bin/env node
// The `tessera` command: a thin launcher for the compiled CLI.
import { main } from '../dist/cli/index.js';

main(process.argv).then(
  (code) => { process.exitCode = code; },
  (err) => { console.error(`tessera: ${err instanceof Error ? err.message : String(err)}`); process.exitCode = 1; },
);
