import { readFileSync } from 'node:fs';

/** The package's version, read once: src/version.ts and dist/version.js both sit one folder below package.json. */
export const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
