import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { RouteGroup } from '../server/index.ts';

/**
 * The web page (src/ui/): index.html at `/`, and under `/assets/` its style sheet and ES modules
 * with the client modules they import, laid out as in src/ so their relative imports resolve.
 * From dist/ the modules are tsc's output (scripts/build.mjs); from the sources (tsx: tests,
 * development) they are TypeScript, their types stripped on request. Only these names are served,
 * so `/assets/*` can never reach another file.
 */
export const PAGE_MODULES = [
  'ui/app.js',
  'ui/api.js',
  'ui/answer.js',
  'ui/conversations.js',
  'ui/documents.js',
  'ui/dom.js',
  'ui/graph.js',
  'ui/panel.js',
  'ui/rich-text.js',
  'ui/run-view.js',
  'client/index.js',
  'client/sse.js',
  'protocol/citations.js',
  'protocol/code-blocks.js',
];
/**
 * Libraries the page loads by URL when a view needs them (the graph view's renderer), served from
 * the installed package: its ES module build, by the name the page imports.
 */
export const VENDOR_MODULES: Record<string, { packageName: string; besideMain: string }> = {
  'vendor/cytoscape.js': { packageName: 'cytoscape', besideMain: 'cytoscape.esm.min.mjs' },
};
const JAVASCRIPT = 'text/javascript; charset=utf-8';
const ASSETS: Record<string, string> = {
  'ui/style.css': 'text/css; charset=utf-8',
  ...Object.fromEntries([...PAGE_MODULES, ...Object.keys(VENDOR_MODULES)].map((name) => [name, JAVASCRIPT])),
};

/**
 * Everything the server sends is shown as text, and this policy backs that up: scripts and
 * styles only from this origin, no inline code, no framing.
 */
const HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  // The files change with the package version only; revalidating keeps a rebuilt page fresh.
  'cache-control': 'no-cache',
};

const FROM_SOURCES = import.meta.url.endsWith('.ts');
/** Not shipped (a `-dev` file): it needs the TypeScript compiler, a dev dependency. */
const TYPE_STRIPPER = new URL('./page-sources-dev.mjs', import.meta.url).href;

/** A file of the page, by its path under src/ (or dist/), or a vendor module from its package. */
async function load(name: string): Promise<string> {
  const vendor = VENDOR_MODULES[name];
  if (vendor) {
    // The ES module build sits beside the package's main file (its CommonJS build).
    const main = createRequire(import.meta.url).resolve(vendor.packageName);
    return readFile(join(dirname(main), vendor.besideMain), 'utf8');
  }
  if (!FROM_SOURCES || !name.endsWith('.js')) return readFile(new URL(`../${name}`, import.meta.url), 'utf8');
  const typescriptName = name.replace(/\.js$/, '.ts');
  const { stripTypes } = (await import(TYPE_STRIPPER)) as { stripTypes: (source: string, fileName: string) => string };
  return stripTypes(await readFile(new URL(`../${typescriptName}`, import.meta.url), 'utf8'), typescriptName);
}

/** `GET /` (the page) and `GET /assets/…` (its style sheet and modules); no authentication, the API calls carry the key. */
export const webRoutes: RouteGroup = (app) => {
  const serve = async (name: string, contentType: string) =>
    new Response(await load(name), { status: 200, headers: { 'content-type': contentType, ...HEADERS } });
  app.get('/', () => serve('ui/index.html', 'text/html; charset=utf-8'));
  app.get('/assets/*', (c) => {
    const name = c.req.path.slice('/assets/'.length);
    if (!Object.hasOwn(ASSETS, name)) return c.json({ error: { code: 'not-found', message: `no asset ${name}` } }, 404);
    return serve(name, ASSETS[name]);
  });
};
