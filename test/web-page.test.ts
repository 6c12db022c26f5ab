import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { loadImage, createCanvas } from '@napi-rs/canvas';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import type { Dossier } from '../src/dossier.ts';
import { optionalRouteGroups } from '../src/server/groups.ts';
import { startServer } from '../src/server/index.ts';
import { openServerState } from '../src/server/state/index.ts';
import { PAGE_MODULES, webRoutes } from '../src/web/route.ts';
import { parseCitationMarkers } from '../src/protocol/citations.ts';
import { REPO_ROOT, regressionIndex, tempDir } from './helpers.ts';
import { startScriptedModel, type ScriptedModel } from './scripted-model.ts';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const skip = existsSync(CHROMIUM)
  ? false
  : `Chromium is not installed at ${CHROMIUM} (apt-get install chromium); the web page test needs a real browser`;

/** Distinct colours (quantised to 5 bits a channel) of a region of an RGBA image, and how many pixels differ from the region's most common colour. */
function colours(data: Uint8ClampedArray, width: number, box: { x: number; y: number; width: number; height: number }) {
  const counts = new Map<number, number>();
  for (let y = Math.floor(box.y); y < Math.floor(box.y + box.height); y++) {
    for (let x = Math.floor(box.x); x < Math.floor(box.x + box.width); x++) {
      const i = (y * width + x) * 4;
      const key = ((data[i] >> 3) << 10) | ((data[i + 1] >> 3) << 5) | (data[i + 2] >> 3);
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  }
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  return { distinct: counts.size, notBackground: total - Math.max(...counts.values()) };
}

/**
 * What the page must show of a scripted answer: the text between its markers, and a marker button
 * for each marker, in order.
 */
async function assertShown(answer: Locator, scripted: string) {
  const shown = (await answer.innerText()).replace(/\s+/g, ' ');
  const markers = parseCitationMarkers(scripted);
  let from = 0;
  for (const marker of markers) {
    const text = scripted.slice(from, marker.start).trim();
    if (text) assert.ok(shown.includes(text.replace(/\s+/g, ' ')), `"${text}" in "${shown}"`);
    from = marker.end;
  }
  assert.deepEqual(
    await answer.locator('button.cite').allInnerTexts(),
    markers.flatMap((m) => m.ids),
  );
}

/** "A, and b?" asks two sub-questions, "A?" and "B?" (the scripted planner's plan). */
const subQuestions = (question: string) =>
  question.split(/, and /).map((part, i, all) => `${part.charAt(0).toUpperCase()}${part.slice(1)}${i < all.length - 1 ? '?' : ''}`);

describe('the web page, in Chromium, against a live server', { skip }, () => {
  let dossier: Dossier;
  let indexDir: string;
  let server: Awaited<ReturnType<typeof startServer>>;
  let keyed: Awaited<ReturnType<typeof startServer>>;
  let apiKey: string;
  let browser: Browser;
  let page: Page;
  let cleanup: () => void;
  // Runs are answered by the scripted model (test/scripted-model.ts): the page shows what the script wrote.
  let model: ScriptedModel;
  const errors: string[] = [];

  before(async () => {
    model = await startScriptedModel({ subQuestions });
    const index = await regressionIndex('sqlite', { env: { ...process.env, ...model.env } });
    ({ dossier, removeFiles: cleanup } = index);
    const { db, dir } = index;
    indexDir = dir;
    server = await startServer({ dossier, db, port: 0, extra: [webRoutes] });
    // A second server on the same index with keys, as `dossier users create` + `keys create` set it up.
    const keyedDb = join(dir, 'keyed.db');
    const setup = await openServerState(keyedDb);
    apiKey = (await setup.createKey((await setup.createUser('ada', { admin: true })).id)).apiKey;
    await setup.close();
    keyed = await startServer({ dossier, db: keyedDb, port: 0, auth: 'keys', extra: [webRoutes] });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    // Any script error or refused resource (the CSP forbids inline code) fails the test at the end.
    page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(`console: ${message.text()}`);
    });
    page.on('dialog', (dialog) => void dialog.accept());
  });
  after(async () => {
    await browser?.close();
    await keyed?.close();
    await server?.close();
    await dossier?.close();
    await model?.close();
    cleanup?.();
  });

  it('is one of the optional route groups, served without auth with a strict content policy', async () => {
    assert.ok((await optionalRouteGroups()).includes(webRoutes));
    const response = await fetch(`${keyed.url}/`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /text\/html/);
    assert.match(response.headers.get('content-security-policy') ?? '', /script-src 'self'/);
    assert.match(await response.text(), /<script type="module" src="\/assets\/ui\/app\.js">/);
    for (const name of PAGE_MODULES) {
      const module = await fetch(`${keyed.url}/assets/${name}`);
      assert.equal(module.status, 200, name);
      assert.match(module.headers.get('content-type') ?? '', /javascript/, name);
      assert.match(module.headers.get('content-security-policy') ?? '', /script-src 'self'/, name);
      // Served from the sources, the modules are plain JavaScript with .js imports.
      assert.doesNotMatch(await module.text(), /from ['"][^'"]+\.ts['"]|^import type /m, name);
    }
    assert.match((await fetch(`${keyed.url}/assets/ui/style.css`)).headers.get('content-type') ?? '', /text\/css/);
    for (const name of [
      'app.js',
      'route.ts',
      '..%2Froute.ts',
      'web/route.js',
      'ui/index.html',
      'ui/tsconfig.json',
      'ui/app.ts',
      'protocol/events.js',
      'server/index.js',
    ]) {
      assert.equal((await fetch(`${keyed.url}/assets/${name}`)).status, 404, name);
    }
  });

  it('asks, streams the answer with citation markers, and opens the cited chunk', async () => {
    await page.goto(`${server.url}/`);
    await page.waitForSelector('body[data-ready="true"]');
    assert.equal(await page.isVisible('#key-form-section'), false, 'no key is asked for on loopback without auth');
    await page.fill('#question', 'Who founded Halvorsen Instruments?');
    await page.press('#question', 'Enter');
    const answer = page.locator('.msg.assistant .answer').last();
    await page.locator('.msg.assistant .answer[aria-busy="false"]').waitFor();
    await assertShown(answer, model.answersTo('Who founded Halvorsen Instruments?')[0]!);
    const marker = answer.locator('button.cite').first();
    const id = await marker.innerText();
    assert.match(id, /^E\d+$/);
    // The marker is a button: reachable and operable from the keyboard.
    await marker.focus();
    await page.keyboard.press('Enter');
    const panel = page.locator('#panel');
    await panel.waitFor();
    assert.equal(await page.locator('#panel-title').innerText(), 'Halvorsen Instruments: company history');
    assert.match(await panel.locator('blockquote.chunk-text').first().innerText(), /founded in 1987 by Marit Halvorsen/);
    const facts = await panel.locator('.facts').first().innerText();
    assert.match(facts, /Heading path\s+Halvorsen Instruments: company history/);
    assert.match(facts, /company-history\.md/);
    // More context from GET /v1/documents/:id.
    await panel.locator('.doc-context .facts').waitFor();
    assert.match(await panel.locator('.doc-context').innerText(), /text\/markdown/);
    await page.keyboard.press('Escape');
    assert.equal(await panel.isVisible(), false);
    assert.equal(await marker.evaluate((node: any) => node === node.ownerDocument.activeElement), true, 'focus returns to the marker');
    // Switching tabs closes it: a cited chunk belongs to the answer it was opened from.
    await marker.click();
    await panel.waitFor();
    await page.click('#tab-documents');
    assert.equal(await panel.isVisible(), false, 'the panel closes when the tab changes');
    await page.click('#tab-ask');
    assert.equal(await panel.isVisible(), false);
  });

  it('shows the timeline with tool calls, latency and tokens', async () => {
    const timeline = page.locator('#timeline');
    assert.ok((await timeline.locator('li.tool').count()) >= 1);
    const tool = await timeline.locator('li.tool').first().innerText();
    assert.match(tool, /search_knowledge .*→ .*passages.* \d+ ms/s);
    assert.match(await timeline.locator('li.model').first().innerText(), /\d+ ms · \d+ in \/ \d+ out tokens/);
    assert.match(await page.locator('#timeline-total').innerText(), /steps, \d+ tool calls, .* tokens/);
  });

  it('asks a follow-up in the same conversation', async () => {
    await page.fill('#question', 'When was it founded?');
    await page.click('#ask-button');
    await page.locator('.msg.assistant').nth(1).locator('.answer[aria-busy="false"]').waitFor();
    // The follow-up, made standalone, is what the model was asked; its answer is shown.
    await assertShown(
      page.locator('.msg.assistant').nth(1).locator('.answer'),
      model.answersTo('When was Halvorsen Instruments founded?')[0]!,
    );
    const conversations = page.locator('#conversation-list button');
    assert.equal(await conversations.count(), 1);
    assert.equal(await conversations.first().getAttribute('aria-current'), 'true');
    const conversationId = await conversations.first().getAttribute('data-conversation-id');
    const { messages } = (await (await fetch(`${server.url}/v1/conversations/${conversationId}/messages`)).json()) as {
      messages: Array<{ role: string; content: string }>;
    };
    assert.deepEqual(
      messages.map((m) => m.role),
      ['user', 'assistant', 'user', 'assistant'],
    );
    assert.equal(messages[2].content, 'When was it founded?');
    // Reopening the conversation shows its messages, markers included.
    await page.click('#new-conversation');
    assert.equal(await page.locator('#thread li').count(), 0);
    await conversations.first().click();
    await page.locator('#thread li.msg').nth(3).waitFor();
    assert.ok((await page.locator('#thread button.cite').count()) >= 2);
    // A stored run replays into the timeline from GET /v1/runs/:id/events.
    await page.locator('#thread').getByRole('button', { name: 'Show run details' }).first().click();
    await page.locator('#timeline li.tool').first().waitFor();
    assert.match(await page.locator('#timeline-total').innerText(), /finish: stop/);
  });

  it('shows a research run as a live tree: plan items, nested agents, their searches, the critique', async () => {
    await page.click('#new-conversation');
    await page.check('input[name="mode"][value="research"]');
    await page.selectOption('#collection', 'default');
    // Two parts: the planner makes two sub-questions, each answered by its own nested agent.
    await page.fill('#question', 'Who founded Halvorsen Instruments, and where did the Tern-4 sea trial take place?');
    await page.click('#ask-button');
    await page.locator('.msg.assistant .answer[aria-busy="false"]').waitFor({ timeout: 30_000 });
    const report = model.answers.filter((a) => a.role === 'planner').at(-1)!.answer;
    assert.equal(parseCitationMarkers(report).length, 2, report);
    await assertShown(page.locator('.msg.assistant .answer'), report);
    const tree = page.locator('#research-tree');
    const items = tree.locator('> li.plan-item');
    assert.equal(await items.count(), 2);
    for (const item of await items.all()) {
      assert.equal(await item.getAttribute('data-status'), 'answered');
      assert.equal(await item.locator('li.agent-node').count(), 1, 'each nested agent hangs under its plan item');
    }
    const agents = tree.locator('li.plan-item li.agent-node');
    assert.match(await agents.first().locator('.node-head').innerText(), /rag:\d+\s+stop · \d+ cited · \d+ ms/);
    assert.match(await agents.first().locator('li.search').first().innerText(), /search .*passages/);
    assert.match(await page.locator('#critique-summary').innerText(), /\d+ claims checked/);
    // Nested agents' steps are in the timeline too, labelled with their path.
    assert.match(await page.locator('#timeline .step.nested .agent').first().innerText(), /research › rag:\d+/);
  });

  it('uploads a file, shows the job finishing and the document listed, then deletes it', async () => {
    await page.click('#tab-documents');
    await page.locator('#document-rows tr').first().waitFor();
    const before = await page.locator('#document-rows tr').count();
    // Plain text with markup in it: the page must show the markup as text, never build elements from it.
    const text =
      'The Kittiwake-5 wave buoy was tested off Stad in March 2025.\nMarkup stays text: <img src=x id=injected> <b id=bold>bold</b>\n';
    await page.setInputFiles('#upload-file', { name: 'kittiwake.txt', mimeType: 'text/plain', buffer: Buffer.from(text) });
    await page.click('#upload-button');
    await page.locator('#upload-progress-text[data-state="finished"]').waitFor({ timeout: 20_000 });
    assert.match(await page.locator('#upload-progress-text').innerText(), /1 ingested/);
    const row = page.locator('#document-rows tr', { hasText: 'kittiwake.txt' });
    await row.waitFor();
    assert.equal(await page.locator('#document-rows tr').count(), before + 1);
    await row.locator('td').first().getByRole('button').click();
    await page.locator('#panel .chunk-list blockquote').first().waitFor();
    assert.match(await page.locator('#panel .chunk-list').innerText(), /<img src=x id=injected> <b id=bold>bold<\/b>/);
    assert.equal(await page.locator('#injected, #bold').count(), 0);
    await page.click('#panel-close');
    await row.getByRole('button', { name: /^Delete / }).click();
    await row.waitFor({ state: 'detached' });
    const { documents } = (await (await fetch(`${server.url}/v1/documents`)).json()) as { documents: Array<{ source: string }> };
    assert.ok(!documents.some((d) => d.source.endsWith('kittiwake.txt')));
    assert.equal(documents.length, before);
  });

  it('renders a page that is not blank (screenshot inspected pixel by pixel)', async () => {
    await page.click('#tab-ask');
    await page.click('#conversation-list button >> nth=1');
    await page.locator('#thread li.msg').nth(3).waitFor();
    const png = await page.screenshot();
    const image = await loadImage(png);
    const canvas = createCanvas(image.width, image.height);
    const context = canvas.getContext('2d');
    context.drawImage(image, 0, 0);
    const { data } = context.getImageData(0, 0, image.width, image.height);
    const whole = colours(data, image.width, { x: 0, y: 0, width: image.width, height: image.height });
    assert.ok(whole.distinct >= 12, `the page has ${whole.distinct} distinct colours`);
    const box = await page.locator('.msg.assistant .answer').first().boundingBox();
    assert.ok(box && box.height > 10, 'the answer has a size');
    const answer = colours(data, image.width, box!);
    // Dark text on white: many pixels differ from the background, in several shades (anti-aliasing).
    assert.ok(answer.notBackground > 200, `the answer area has ${answer.notBackground} ink pixels`);
    assert.ok(answer.distinct >= 4, `the answer area has ${answer.distinct} colours`);
  });

  it('asks for an API key when the server runs with keys, and sends it as a bearer token', async () => {
    const keyedPage = await browser.newPage();
    try {
      await keyedPage.goto(`${keyed.url}/`);
      await keyedPage.locator('#key-form-section').waitFor();
      await keyedPage.fill('#api-key', 'not-a-key');
      await keyedPage.click('#key-form button[type="submit"]');
      await keyedPage.locator('#key-error', { hasText: 'not valid' }).waitFor();
      await keyedPage.fill('#api-key', apiKey);
      await keyedPage.click('#key-form button[type="submit"]');
      await keyedPage.locator('#key-status').waitFor();
      assert.equal(await keyedPage.isVisible('#key-form-section'), false);
      assert.equal(await keyedPage.evaluate("sessionStorage.getItem('dossier.apiKey')"), apiKey);
      assert.match(await keyedPage.locator('#collection').innerText(), /default \(7\)/);
    } finally {
      await keyedPage.close();
    }
    assert.deepEqual(
      errors.filter((e) => !/401 \(Unauthorized\)/.test(e)),
      [],
    );
  });

  it('shows code as code: the fenced block of a cited passage as <pre><code>, inline code as <code>, prose apart', async () => {
    const code = 'import quillfeather as qf\nqf.spark([3, 1, 4], width=40)  # <b>not markup</b>';
    const file = join(indexDir, 'quillfeather.md');
    writeFileSync(
      file,
      `# Quillfeather sparklines\n\nQuillfeather draws a sparkline with \`qf.spark(values)\` in one call.\n\n\`\`\`python\n${code}\n\`\`\`\n`,
    );
    await dossier.ingest([file]);
    await page.goto(`${server.url}/`);
    await page.waitForSelector('body[data-ready="true"]');
    await page.check('input[name="mode"][value="rag"]');
    await page.fill('#question', 'How does Quillfeather draw a sparkline?');
    await page.click('#ask-button');
    const answer = page.locator('.msg.assistant .answer').last();
    await page.locator('.msg.assistant .answer[aria-busy="false"]').last().waitFor();
    // The script quotes the passage's first sentence (ingest keeps a code span's text, not its backticks).
    assert.match(await answer.innerText(), /^Quillfeather draws a sparkline with qf\.spark\(values\) in one call\./);
    await answer.locator('button.cite').first().click();
    const passage = page.locator('#panel blockquote.chunk-text').first();
    await passage.waitFor();
    const block = passage.locator('pre code');
    assert.equal(await block.count(), 1);
    assert.equal(await block.textContent(), code, 'the code line by line, exactly, markup as text');
    assert.equal(await block.getAttribute('class'), 'language-python');
    assert.doesNotMatch((await block.textContent()) ?? '', /Quillfeather draws/, 'the prose is not inside the code');
    assert.equal(await passage.locator('b').count(), 0);
    assert.equal(await passage.locator('> p', { hasText: 'Quillfeather draws a sparkline' }).count(), 1);
    // The block keeps its lines (no wrapping) and scrolls sideways when wide.
    const style = await block.evaluate((node: any) => {
      const pre = node.ownerDocument.defaultView.getComputedStyle(node.parentElement);
      return {
        whiteSpace: pre.whiteSpace,
        overflowX: pre.overflowX,
        font: node.ownerDocument.defaultView.getComputedStyle(node).fontFamily,
      };
    });
    assert.deepEqual({ ...style, font: /monospace/.test(style.font) }, { whiteSpace: 'pre', overflowX: 'auto', font: true });
    await page.click('#panel-close');

    // An answer that quotes a fenced block, its citation after the closing fence (as the offline reader
    // writes it), and inline code; and a passage with a code span (plain text keeps its backticks).
    const [renderedAnswer, renderedPassage] = await page.evaluate(async (assets: string) => {
      const { renderAnswer } = await import(`${assets}/answer.js`);
      const { passageNodes } = await import(`${assets}/rich-text.js`);
      const { document } = globalThis as any;
      const answer = document.createElement('div');
      renderAnswer(
        answer,
        'Draw one with `qf.spark`:\n```python\nqf.spark([1, 2])\n    qf.show()\n``` [E1]\nThat is all. [E2]',
        () => undefined,
      );
      const passage = document.createElement('div');
      passage.append(...passageNodes('Call `f(<i>x</i>)` first.\n\n```\n<i>y</i>\n```'));
      // No named functions in here: tsx would wrap them in a helper the page does not have.
      return [answer, passage].map((box: any) =>
        [...box.children].map((child: any) => `${child.tagName.toLowerCase()}: ${child.innerHTML}`),
      );
    }, `${server.url}/assets/ui`);
    const cite = (id: string) =>
      `<span class="cites"><button type="button" class="cite pending" data-cite="${id}" aria-label="Citation ${id}">${id}</button></span>`;
    assert.deepEqual(renderedAnswer, [
      'p: Draw one with <code>qf.spark</code>:',
      'pre: <code class="language-python">qf.spark([1, 2])\n    qf.show()</code>',
      `p: ${cite('E1')}`,
      `p: That is all. ${cite('E2')}`,
    ]);
    assert.deepEqual(renderedPassage, ['p: Call <code>f(&lt;i&gt;x&lt;/i&gt;)</code> first.', 'pre: <code>&lt;i&gt;y&lt;/i&gt;</code>']);
    assert.deepEqual(errors, []);
  });
});

/** The modules a module imports as code (type-only imports are erased), by path under src/. */
function codeImportsOf(name: string): string[] {
  const source = readFileSync(join(REPO_ROOT, 'src', name.replace(/\.js$/, '.ts')), 'utf8');
  const imports = [...source.matchAll(/^(?:import|export)\s+(?!type\b)[^;]*?from\s+'(\.[^']+)'/gms)].map((match) => match[1]);
  return imports.map((from) => new URL(from.replace(/\.ts$/, '.js'), `file:///${name}`).pathname.slice(1));
}

describe('the web page as code', () => {
  it('the route serves exactly the modules the page loads: ui/app.js and what it imports as code, transitively', () => {
    const seen = new Set<string>();
    const visit = (name: string) => {
      if (seen.has(name)) return;
      seen.add(name);
      for (const imported of codeImportsOf(name)) visit(imported);
    };
    visit('ui/app.js');
    assert.deepEqual([...seen].sort(), [...PAGE_MODULES].sort());
  });

  it('src/ui type-checks as browser code: DOM lib, no @types/node, and nothing but the client, protocol and renderer types beside it', () => {
    const tsc = join(REPO_ROOT, 'node_modules/typescript/bin/tsc');
    const config = join(REPO_ROOT, 'src/ui/tsconfig.json');
    const listed = spawnSync(process.execPath, [tsc, '-p', config, '--listFilesOnly'], { encoding: 'utf8' });
    const files = listed.stdout
      .split('\n')
      // The graph view's renderer is typed by its own package (and loaded by URL: web/route.ts).
      .filter((f) => f && !f.includes('node_modules/typescript/lib/') && !f.endsWith('node_modules/cytoscape/index.d.ts'))
      .map((f) => f.slice(REPO_ROOT.length + 1));
    assert.deepEqual(
      files.filter((f) => !/^src\/(ui|client|protocol)\/[\w-]+\.ts$|^src\/store\/types\.ts$/.test(f)),
      [],
      "files outside the page, the client, the wire types and the renderer's types",
    );
    assert.ok(files.includes('src/ui/app.ts'));
    const check = spawnSync(process.execPath, [tsc, '-p', config], { encoding: 'utf8' });
    assert.equal(check.status, 0, `tsc found errors:\n${check.stdout}${check.stderr}`);
    // The Node program leaves the page out, so Node's types never reach it.
    const node = spawnSync(process.execPath, [tsc, '-p', join(REPO_ROOT, 'tsconfig.json'), '--listFilesOnly'], { encoding: 'utf8' });
    assert.doesNotMatch(node.stdout, /\/src\/ui\//);
  });

  const built = join(REPO_ROOT, 'dist/web/route.js');
  it('the built page (dist/, as the bin serves it) loads in Chromium with the same files', {
    skip: skip || (existsSync(built) ? false : 'dist/ is not built (npm run build)'),
    timeout: 60_000,
  }, async () => {
    const { dir, cleanup } = tempDir();
    const { createDossier } = await import('../src/dossier.ts');
    const db = join(dir, 'index.db');
    const dossier = await createDossier({ db });
    const fromDist = (await import(pathToFileURL(built).href)) as typeof import('../src/web/route.ts');
    const server = await startServer({ dossier, db, port: 0, extra: [fromDist.webRoutes] });
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
    try {
      assert.deepEqual(fromDist.PAGE_MODULES, PAGE_MODULES);
      for (const name of [...PAGE_MODULES, ...Object.keys(fromDist.VENDOR_MODULES), 'ui/style.css'])
        assert.equal((await fetch(`${server.url}/assets/${name}`)).status, 200, name);
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      page.on('console', (message) => void (message.type() === 'error' && errors.push(message.text())));
      await page.goto(`${server.url}/`);
      await page.waitForSelector('body[data-ready="true"]');
      assert.equal(await page.locator('#conversation-empty').isVisible(), true);
      // The graph view loads its renderer from the installed package.
      await page.getByRole('tab', { name: 'Graph' }).click();
      await page.getByText('No knowledge graph yet').waitFor();
      assert.equal(await page.evaluate(async () => typeof (await import('/assets/vendor/cytoscape.js' as string)).default), 'function');
      assert.deepEqual(errors, []);
    } finally {
      await browser.close();
      await server.close();
      await dossier.close();
      cleanup();
    }
  });
});
