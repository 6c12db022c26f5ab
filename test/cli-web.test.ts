import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { SAMPLE_RESULTS, SEARXNG_PROTOCOL, startProtocolServer, type ProtocolServer } from '../src/research/web/web-search-contract.ts';
import { runCli } from './helpers.ts';

// Settings a developer's shell may carry must not leak into these runs.
const CLEAN = {
  DOSSIER_WEB_SEARCH: '',
  DOSSIER_SEARXNG_URL: '',
  DOSSIER_WEB_SEARCH_URL: '',
  DOSSIER_WEB_ALLOW: '',
  TAVILY_API_KEY: '',
  BRAVE_API_KEY: '',
  SERPER_API_KEY: '',
};

describe('dossier web', () => {
  let pages: Server;
  let base: string;
  let searxng: ProtocolServer;

  before(async () => {
    pages = createServer((req, res) => {
      if (req.url === '/page') {
        res.writeHead(200, { 'content-type': 'text/html' });
        return res.end(
          '<html><head><title>Local page</title></head><body><h1>Local page</h1><p>Served from <em>loopback</em>.</p></body></html>',
        );
      }
      if (req.url === '/to-metadata') {
        res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' });
        return res.end();
      }
      res.writeHead(404);
      res.end();
    });
    await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;
    searxng = await startProtocolServer(SEARXNG_PROTOCOL);
  });
  after(async () => {
    await new Promise((resolve) => pages.close(resolve));
    await searxng.close();
  });

  it('web fetch --json prints {url, finalUrl, title, markdown} for an allowed local server', async () => {
    const result = await runCli(['web', 'fetch', `${base}/page`, '--json'], { env: { ...CLEAN, DOSSIER_WEB_ALLOW: '127.0.0.1' } });
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.json.url, `${base}/page`);
    assert.equal(result.json.finalUrl, `${base}/page`);
    assert.equal(result.json.title, 'Local page');
    assert.match(result.json.markdown, /Served from \*loopback\*\./);
    assert.equal(result.json.truncated, false);
  });

  it('web fetch in human mode prints the title and the Markdown; --max-bytes cuts it', async () => {
    const result = await runCli(['web', 'fetch', `${base}/page`, '--max-bytes', '40'], {
      env: { ...CLEAN, DOSSIER_WEB_ALLOW: '127.0.0.1' },
    });
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /truncated/);
  });

  it('a refused address exits 1 with {error:{code:"blocked-address"}} in JSON, one line on stderr otherwise', async () => {
    const json = await runCli(['web', 'fetch', `${base}/page`, '--json'], { env: CLEAN });
    assert.equal(json.status, 1);
    assert.equal(json.json.error.code, 'blocked-address');
    assert.match(json.json.error.message, /^refused http:\/\/127\.0\.0\.1:\d+\/page: 127\.0\.0\.1 is a loopback address/);
    const human = await runCli(['web', 'fetch', 'http://[::ffff:169.254.169.254]/'], { env: CLEAN });
    assert.equal(human.status, 1);
    assert.equal(human.stdout, '');
    assert.match(human.stderr, /^dossier: refused http:\/\/\[::ffff:169\.254\.169\.254\]\/: .*metadata.*\n$/);
    const redirected = await runCli(['web', 'fetch', `${base}/to-metadata`, '--json'], {
      env: { ...CLEAN, DOSSIER_WEB_ALLOW: '127.0.0.1' },
    });
    assert.equal(redirected.status, 1);
    assert.equal(redirected.json.error.code, 'blocked-address');
    assert.match(redirected.json.error.message, /^refused http:\/\/169\.254\.169\.254\/latest\/meta-data\/: .*metadata/);
    const scheme = await runCli(['web', 'fetch', 'file:///etc/passwd', '--json'], { env: CLEAN });
    assert.equal(scheme.json.error.code, 'blocked-address');
  });

  it('web search --json asks the configured SearXNG and prints {results:[{url,title,snippet}]}', async () => {
    searxng.reset();
    const result = await runCli(['web', 'search', 'falcon', 'survey', '--limit', '3', '--json'], {
      env: { ...CLEAN, DOSSIER_WEB_SEARCH: 'searxng', DOSSIER_SEARXNG_URL: searxng.baseUrl },
    });
    assert.equal(result.status, 0, result.stderr);
    assert.deepEqual(result.json, { results: SAMPLE_RESULTS.slice(0, 3) });
    assert.equal(searxng.requests[0].url.searchParams.get('q'), 'falcon survey');
    const human = await runCli(['web', 'search', 'falcons'], {
      env: { ...CLEAN, DOSSIER_WEB_SEARCH: 'searxng', DOSSIER_SEARXNG_URL: searxng.baseUrl },
    });
    assert.match(human.stdout, /^1\. Falcon survey page 1\n {3}https:\/\/example\.org\/page-1\n/);
  });

  it('web search without a provider says web search is off; bad command lines exit 2', async () => {
    const off = await runCli(['web', 'search', 'falcons', '--json'], { env: CLEAN });
    assert.equal(off.status, 1);
    assert.equal(off.json.error.code, 'config');
    assert.match(off.json.error.message, /^web search is off: set DOSSIER_WEB_SEARCH/);
    assert.equal((await runCli(['web'], { env: CLEAN })).status, 2);
    assert.equal((await runCli(['web', 'crawl', 'x'], { env: CLEAN })).status, 2);
    assert.equal((await runCli(['web', 'fetch'], { env: CLEAN })).status, 2);
    assert.equal((await runCli(['web', 'fetch', `${base}/page`, '--max-bytes', '0'], { env: CLEAN })).status, 2);
  });
});
