// `npm run build`: a clean dist/ (so removed modules never ship), tsc, then the plain-JS worker files
// tsc does not copy (they are loaded by URL at run time, from the same relative place as in src/).
// `*-dev.mjs` files are entries for running from sources (they register tsx) and are not shipped.
import { spawnSync } from 'node:child_process';
import { cpSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { extname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const src = join(root, 'src');
const dist = join(root, 'dist');
const ASSETS = new Set(['.mjs', '.cjs', '.js', '.json', '.wasm', '.html', '.css']);

rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const { status } = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
if (status !== 0) process.exit(status ?? 1);

for (const entry of readdirSync(src, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !ASSETS.has(extname(entry.name)) || entry.name.includes('-dev.')) continue;
  const from = join(entry.parentPath ?? entry.path, entry.name); // parentPath is Node ≥ 20.12
  cpSync(from, join(dist, relative(src, from)));
}
