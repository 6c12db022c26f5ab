import { readFile } from 'node:fs/promises';
import type { RouteGroup } from '../server/index.ts';

/**
 * The web page: three plain files next to this module (copied into dist/ by scripts/build.mjs),
 * no bundler. Only these names are served, so `/assets/*` can never reach another file.
 */
const FILES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'style.css': 'text/css; charset=utf-8',
};

/**
 * Everything the server sends is shown as text, and this policy backs that up: scripts and
 * styles only from this origin, no inline code, no framing.
 */
const HEADERS = {
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  // The files change with the package version only; revalidating keeps a rebuilt page fresh.
  'cache-control': 'no-cache',
};

async function load(name: string): Promise<string> {
  return readFile(new URL(`./${name}`, import.meta.url), 'utf8');
}

/** `GET /` (the page) and `GET /assets/app.js|style.css`; no authentication, the API calls carry the key. */
export const webRoutes: RouteGroup = (app) => {
  const serve = async (name: string) => new Response(await load(name), { status: 200, headers: { 'content-type': FILES[name], ...HEADERS } });
  app.get('/', () => serve('index.html'));
  app.get('/assets/:name', (c) => {
    const name = c.req.param('name');
    if (name === 'index.html' || !Object.hasOwn(FILES, name)) return c.json({ error: { code: 'not-found', message: `no asset ${name}` } }, 404);
    return serve(name);
  });
};
