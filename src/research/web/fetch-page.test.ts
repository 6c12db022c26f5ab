import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import type { DossierError } from '../../errors/index.ts';
import { fetchPage, htmlToMarkdown } from './fetch-page.ts';

const ARTICLE = `<!doctype html><html lang="en"><head><title>Falcon survey 2024 | Coastal Birds</title>
<script>window.tracker = "SCRIPT-TEXT";</script><style>.x{color:red}</style></head>
<body>
<header><a href="/">Coastal Birds</a> <nav><a href="/about">About us</a> <a href="/shop">NAV-SHOP-LINK</a></nav></header>
<main><article>
<h1>Falcon survey 2024</h1>
<p>The Zephyrine falcon survey counted <strong>forty nesting pairs</strong> along the northern cliffs in the spring, the most since records began in 1987.
Volunteers walked every stretch of the coast twice, once at dawn and once at dusk, and logged each nest with its position.</p>
<h2>Method</h2>
<p>Each pair was confirmed by two observers. The full protocol is in the <a href="/docs/protocol.html">survey protocol</a>, which the team revises every winter.
Nests on the seaward face were counted from boats, weather permitting, which happened on eleven days of the season.</p>
<ul><li>Dawn transects</li><li>Dusk transects</li></ul>
<p>Results were checked against the previous five seasons, and the counts agree within the usual margin of two pairs.
The survey team returns to the cliffs every spring to count the falcons again, and the next survey starts in March.</p>
<img src="/chart.png" alt="Nesting pairs by year">
</article></main>
<aside>ASIDE-RELATED-POSTS</aside>
<footer>FOOTER-COPYRIGHT 2024</footer>
</body></html>`;

describe('fetchPage', () => {
  let server: Server;
  let base: string;
  const allow = ['127.0.0.1'];

  before(async () => {
    server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      switch (url.pathname) {
        case '/article':
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
          return res.end(ARTICLE);
        case '/gzip':
          res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' });
          return res.end(gzipSync(ARTICLE));
        case '/latin1':
          res.writeHead(200, { 'content-type': 'text/plain; charset=iso-8859-1' });
          return res.end(Buffer.from('Caf\xe9 cr\xe8me', 'latin1'));
        case '/plain':
          res.writeHead(200, { 'content-type': 'text/plain' });
          return res.end('Plain notes.\n\n* not a list marker to touch\n<b>not html</b>\n');
        case '/md':
          res.writeHead(200, { 'content-type': 'text/markdown; charset=utf-8' });
          return res.end('# Field notes\n\nSome *markdown* text.\n');
        case '/untyped':
          res.writeHead(200);
          return res.end('<html><head><title>No type</title></head><body><p>Sniffed as HTML.</p></body></html>');
        case '/short':
          res.writeHead(200, { 'content-type': 'text/html' });
          return res.end('<p>Just one line, <a href="rel/link">a link</a>.</p>');
        case '/big': {
          res.writeHead(200, { 'content-type': 'text/plain' });
          // Streams 3 MB; the reader must stop long before the end.
          const line = `${'x'.repeat(1023)}\n`;
          let sent = 0;
          const pump = () => {
            while (sent < 3072) {
              sent++;
              if (!res.write(line)) return res.once('drain', pump);
            }
            res.end();
          };
          return pump();
        }
        case '/pdf':
          res.writeHead(200, { 'content-type': 'application/pdf' });
          return res.end('%PDF-1.7');
        case '/missing':
          res.writeHead(404, { 'content-type': 'text/html' });
          return res.end('<h1>Not found</h1>');
        case '/slow-body':
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.write('started…');
          return; // never ends
        case '/no-answer':
          return; // never answers
        case '/loop':
          res.writeHead(302, { location: '/loop' });
          return res.end();
        default: {
          const hops = url.pathname.match(/^\/chain\/(\d+)$/);
          if (hops) {
            const left = Number(hops[1]);
            res.writeHead(left > 0 ? 301 : 200, left > 0 ? { location: `/chain/${left - 1}` } : { 'content-type': 'text/plain' });
            return res.end(left > 0 ? '' : 'end of chain');
          }
          res.writeHead(404);
          return res.end();
        }
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('turns HTML into Markdown of the main content: headings, emphasis, lists, absolute links; no scripts, navigation or footer', async () => {
    const page = await fetchPage(`${base}/article`, { allow });
    assert.equal(page.title, 'Falcon survey 2024 | Coastal Birds');
    assert.equal(page.contentType, 'text/html');
    assert.equal(page.url, `${base}/article`);
    assert.equal(page.finalUrl, `${base}/article`);
    assert.equal(page.truncated, false);
    assert.ok(!Number.isNaN(Date.parse(page.fetchedAt)));
    const md = page.markdown;
    assert.match(md, /## Method/);
    assert.match(md, /\*\*forty nesting pairs\*\*/);
    assert.match(md, /^-\s+Dusk transects$/m);
    assert.ok(md.includes(`[survey protocol](${base}/docs/protocol.html)`), md);
    for (const junk of ['SCRIPT-TEXT', 'NAV-SHOP-LINK', 'FOOTER-COPYRIGHT', 'ASIDE-RELATED-POSTS', 'color:red', '<p>'])
      assert.ok(!md.includes(junk), `${junk} left in:\n${md}`);
  });

  it('decompresses gzip and honours the declared charset', async () => {
    const page = await fetchPage(`${base}/gzip`, { allow });
    assert.match(page.markdown, /forty nesting pairs/);
    assert.equal((await fetchPage(`${base}/latin1`, { allow })).markdown, 'Café crème');
  });

  it('keeps text/plain and Markdown as they are', async () => {
    const plain = await fetchPage(`${base}/plain`, { allow });
    assert.equal(plain.markdown, 'Plain notes.\n\n* not a list marker to touch\n<b>not html</b>');
    assert.equal(plain.contentType, 'text/plain');
    const md = await fetchPage(`${base}/md`, { allow });
    assert.equal(md.markdown, '# Field notes\n\nSome *markdown* text.');
    assert.equal(md.title, 'Field notes');
  });

  it('sniffs a page without Content-Type, and falls back to the body for pages too short for Readability', async () => {
    const untyped = await fetchPage(`${base}/untyped`, { allow });
    assert.equal(untyped.title, 'No type');
    assert.match(untyped.markdown, /Sniffed as HTML\./);
    const short = await fetchPage(`${base}/short`, { allow });
    assert.equal(short.markdown, `Just one line, [a link](${base}/rel/link).`);
  });

  it('stops reading at maxBytes and says the page was truncated', async () => {
    const started = performance.now();
    const page = await fetchPage(`${base}/big`, { allow, maxBytes: 10_000 });
    assert.equal(page.truncated, true);
    assert.equal(page.bytes, 10_000);
    assert.ok(page.markdown.length <= 10_000);
    assert.ok(performance.now() - started < 5000);
    const whole = await fetchPage(`${base}/big`, { allow, maxBytes: 4 * 1024 * 1024 });
    assert.equal(whole.truncated, false);
    assert.equal(whole.bytes, 3072 * 1024);
  });

  it('gives up at timeoutMs, whether the server never answers or never finishes', async () => {
    for (const path of ['/no-answer', '/slow-body']) {
      const started = performance.now();
      const error = await fetchPage(`${base}${path}`, { allow, timeoutMs: 300 }).then(
        () => assert.fail('no timeout'),
        (e: DossierError) => e,
      );
      assert.equal(error.code, 'remote-timeout', `${path}: ${error.message}`);
      assert.match(error.message, /timed out after 300 ms fetching http:\/\/127\.0\.0\.1:\d+\//);
      assert.ok(performance.now() - started < 2000, `${path} took too long`);
    }
  });

  it('follows up to maxRedirects redirects and refuses more', async () => {
    const page = await fetchPage(`${base}/chain/5`, { allow });
    assert.equal(page.finalUrl, `${base}/chain/0`);
    assert.equal(page.markdown, 'end of chain');
    await assert.rejects(fetchPage(`${base}/chain/3`, { allow, maxRedirects: 2 }), /too many redirects \(more than 2\)/);
    await assert.rejects(
      fetchPage(`${base}/loop`, { allow }),
      (e: DossierError) => e.code === 'remote-failed' && /too many redirects \(more than 5\)/.test(e.message),
    );
  });

  it('refuses other content types, and HTTP errors, with one-line messages', async () => {
    await assert.rejects(
      fetchPage(`${base}/pdf`, { allow }),
      (e: DossierError) => e.code === 'unsupported-format' && /is application\/pdf; only HTML, plain text and Markdown/.test(e.message),
    );
    await assert.rejects(
      fetchPage(`${base}/missing`, { allow }),
      (e: DossierError) => e.code === 'remote-failed' && /^HTTP 404 fetching http:/.test(e.message),
    );
    await assert.rejects(
      fetchPage('http://127.0.0.1:1/', { allow }),
      (e: DossierError) => e.code === 'remote-unreachable' && /ECONNREFUSED/.test(e.message),
    );
  });

  it("honours the caller's signal, before and during the fetch", async () => {
    await assert.rejects(fetchPage(`${base}/article`, { allow, signal: AbortSignal.abort(new Error('run aborted')) }), /run aborted/);
    const controller = new AbortController();
    const running = fetchPage(`${base}/slow-body`, { allow, signal: controller.signal });
    setTimeout(() => controller.abort(new Error('run aborted')), 50);
    await assert.rejects(running, /run aborted/);
  });
});

describe('htmlToMarkdown', () => {
  it('drops links to scripts and keeps image alt text only', () => {
    const { markdown } = htmlToMarkdown(
      '<p>Go <a href="javascript:alert(1)">here</a>. <img src="x.png" alt="A chart"></p>',
      'https://example.org/a/',
    );
    assert.equal(markdown, 'Go here. A chart');
  });
});

describe('fetchPage time cap', () => {
  it('covers a resolver that never answers', async () => {
    const started = performance.now();
    // A real hanging lookup keeps the event loop alive (the deadline timer does not); this one must be held open.
    const keepAlive = setTimeout(() => {}, 5000);
    const never = () => new Promise<never>(() => {});
    await assert.rejects(
      fetchPage('http://slow-dns.test/', { timeoutMs: 200, lookup: never }),
      (e: DossierError) => e.code === 'remote-timeout',
    );
    clearTimeout(keepAlive);
    assert.ok(performance.now() - started < 1500);
  });
});
