// `npm run build`: a clean dist/ (so removed modules never ship), tsc (the package, then the web
// page's browser modules), then the plain-JS worker files and the page's HTML and CSS, which tsc
// does not copy (they are loaded by URL at run time, from the same relative place as in src/).
// `*-dev.mjs` files are entries for running from sources (they register tsx) and are not shipped.
// `--no-check`: emit only, for `npm test`, which has type-checked everything once already (`npm run typecheck`).
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { extname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const src = join(root, 'src');
const dist = join(root, 'dist');
const ASSETS = new Set(['.mjs', '.cjs', '.js', '.json', '.wasm', '.html', '.css']);

rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const noCheck = process.argv.includes('--no-check') ? ['--noCheck'] : [];
function compile(...args) {
  const { status } = spawnSync(process.execPath, [tsc, ...args, ...noCheck], { stdio: 'inherit' });
  if (status !== 0) process.exit(status ?? 1);
}
compile('-p', join(root, 'tsconfig.build.json'));

// The web page (src/ui) is browser code with its own config (DOM lib, no Node types). Only its own
// modules are kept, in dist/ui/: the client modules they import are the package's, built above.
const uiOut = mkdtempSync(join(tmpdir(), 'dossier-ui-'));
try {
  compile('-p', join(src, 'ui', 'tsconfig.json'), '--noEmit', 'false', '--outDir', uiOut);
  cpSync(join(uiOut, 'ui'), join(dist, 'ui'), { recursive: true });
} finally {
  rmSync(uiOut, { recursive: true, force: true });
}

for (const entry of readdirSync(src, { recursive: true, withFileTypes: true })) {
  // A folder's tsconfig.json (src/ui's) is build input, not an asset.
  if (!entry.isFile() || !ASSETS.has(extname(entry.name)) || entry.name.includes('-dev.') || entry.name === 'tsconfig.json') continue;
  const from = join(entry.parentPath ?? entry.path, entry.name); // parentPath is Node ≥ 20.12
  cpSync(from, join(dist, relative(src, from)));
}
