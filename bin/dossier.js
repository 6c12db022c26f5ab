#!/usr/bin/env node
// Runs the built CLI (dist/ is made by `npm run build`, and by `npm install` in a clone via `prepare`).
import { existsSync } from 'node:fs';

const entry = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  console.error('dossier: not built; run "npm run build"');
  process.exit(1);
}
// `dossier stats | head -1`: a reader that goes away ends the command quietly.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}
const { main } = await import(entry.href);
process.exitCode = await main(process.argv.slice(2));
