import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createClient, type GraphEntityDetail } from '../src/client/index.ts';
import { createDossier, type Dossier } from '../src/dossier.ts';
import { startServer } from '../src/server/index.ts';
import { webRoutes } from '../src/web/route.ts';
import { tempDir } from './helpers.ts';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking'];
const skip = existsSync(CHROMIUM) ? false : `Chromium is not installed at ${CHROMIUM}; the graph view test needs a real browser`;

/**
 * The web page's Graph tab in Chromium against a live loopback server: the user builds the graph,
 * finds an entity by name, sees its neighbourhood drawn by cytoscape.js, clicks a neighbour on the
 * picture and reads its relationships and passages, then follows a name in the list back. Passages
 * that hold markup are shown as text.
 */
const FILES: Record<string, string> = {
  'halvorsen.md':
    '# Marit Halvorsen\n\nMarit Halvorsen is an engineer from Bergen. Marit Halvorsen founded Tidewater Instruments in 1987.\n',
  'tidewater.md':
    '# Tidewater Instruments\n\nTidewater Instruments builds marine radios. Tidewater Instruments opened a second factory in Stavanger in 1999.\n',
  'nordmann.txt':
    'Ola Nordmann\n\nOla Nordmann joined Tidewater Instruments in 1990. Ola Nordmann and Erik Dahl built the Kestrel radio in Bergen. Ola Nordmann wrote <img src="x" onerror="window.__xss=1"> on the factory wall.\n',
};

describe('the web page: the Graph view, in Chromium', { skip, timeout: 120_000 }, () => {
  let dossier: Dossier;
  let server: Awaited<ReturnType<typeof startServer>>;
  let browser: Browser;
  let page: Page;
  let cleanup: () => void;
  const errors: string[] = [];

  before(async () => {
    const temp = tempDir();
    cleanup = temp.cleanup;
    for (const [name, text] of Object.entries(FILES)) writeFileSync(join(temp.dir, name), text);
    const db = join(temp.dir, 'index.db');
    dossier = await createDossier({ db, env: {} });
    await dossier.ingest(Object.keys(FILES).map((name) => join(temp.dir, name)));
    server = await startServer({ dossier, db, port: 0, extra: [webRoutes] });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
    page.on('console', (message) => void (message.type() === 'error' && errors.push(`console: ${message.text()}`)));
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    await dossier?.close();
    cleanup?.();
  });

  /** The cytoscape instance of the picture (the library keeps it on its container). */
  const drawn = () =>
    page.evaluate(() => {
      const { document } = globalThis as any;
      const cy = document.getElementById('graph-canvas')._cyreg?.cy;
      return cy
        ? {
            nodes: cy
              .nodes()
              .map((n: any) => n.id() as string)
              .sort(),
            edges: cy.edges().length as number,
          }
        : undefined;
    });

  /** The entity's id and the ids of the entities it is related to, as the API gives them. */
  const neighbourhood = (detail: GraphEntityDetail) =>
    [...new Set([detail.entity.id, ...detail.relationships.flatMap((r) => [r.subjectId, r.objectId])])].sort();

  it('builds the graph, draws an entity and its neighbours, and a click on a neighbour shows its relationships and passages', async () => {
    await page.goto(server.url);
    await page.waitForSelector('body[data-ready="true"]');
    await page.getByRole('tab', { name: 'Graph' }).click();
    await page.getByText('No knowledge graph yet').waitFor();

    await page.getByRole('button', { name: 'Build graph' }).click();
    await page.getByText(/Graph built: \d+ entities/).waitFor();
    await page.locator('#graph-results li').first().waitFor();

    await page.getByLabel('Entity', { exact: true }).fill('Marit Halvorsen');
    await page.getByRole('button', { name: 'Find' }).click();
    await page.locator('#graph-entity-name', { hasText: 'Marit Halvorsen' }).waitFor();
    const api = createClient({ baseUrl: server.url });
    const marit = await api.graph.entity('Marit Halvorsen');
    await page.waitForFunction((id) => (globalThis as any).document.getElementById('graph-canvas')?.dataset.centre === id, marit.entity.id);
    const picture = await drawn();
    assert.ok(picture, 'cytoscape drew the neighbourhood');
    assert.deepEqual(picture.nodes, neighbourhood(marit), 'one node for the entity and one for each related entity');
    assert.ok(picture.nodes.length >= 2 && picture.edges >= 1);
    assert.equal(await page.locator('#graph-canvas').getAttribute('data-nodes'), String(picture.nodes.length));
    assert.ok((await page.locator('#graph-canvas canvas').count()) > 0, 'drawn on a canvas');
    // The relationships beside the picture name the same neighbours.
    const tidewater = marit.relationships.find((r) => r.object === 'Tidewater Instruments' || r.subject === 'Tidewater Instruments');
    assert.ok(tidewater, JSON.stringify(marit.relationships));
    const tidewaterId = tidewater.subject === 'Tidewater Instruments' ? tidewater.subjectId : tidewater.objectId;
    await page.locator('#graph-relationships button', { hasText: 'Tidewater Instruments' }).first().waitFor();
    await page.locator('#graph-passages', { hasText: 'Marit Halvorsen founded Tidewater Instruments' }).waitFor();

    // A click on the neighbour's node in the picture.
    const at = await page.evaluate((id) => {
      const container = (globalThis as any).document.getElementById('graph-canvas');
      const box = container.getBoundingClientRect();
      const position = container._cyreg.cy.getElementById(id).renderedPosition();
      return { x: box.left + position.x, y: box.top + position.y };
    }, tidewaterId);
    await page.mouse.click(at.x, at.y);
    await page.locator('#graph-entity-name', { hasText: 'Tidewater Instruments' }).waitFor();
    const shown = await api.graph.entity(tidewaterId);
    await page.waitForFunction((id) => (globalThis as any).document.getElementById('graph-canvas')?.dataset.centre === id, tidewaterId);
    assert.deepEqual((await drawn())?.nodes, neighbourhood(shown), 'the picture is now centred on the neighbour');
    const relationships = await page.locator('#graph-relationships li').allInnerTexts();
    assert.equal(relationships.length, shown.relationships.length);
    assert.ok(
      relationships.some((line) => line.includes('Marit Halvorsen') && line.includes('Tidewater Instruments')),
      relationships.join('\n'),
    );
    const passages = page.locator('#graph-passages');
    await passages.getByText('Tidewater Instruments builds marine radios').first().waitFor();
    // Markup in a passage is text: no element was made from it, no script ran.
    await passages.getByText('<img src="x" onerror="window.__xss=1">', { exact: false }).first().waitFor();
    assert.equal(await passages.locator('img').count(), 0);
    assert.equal(await page.evaluate(() => (globalThis as { __xss?: number }).__xss), undefined);

    // Following a name in the list beside the picture.
    await page.locator('#graph-relationships button', { hasText: 'Ola Nordmann' }).first().click();
    await page.locator('#graph-entity-name', { hasText: 'Ola Nordmann' }).waitFor();
    await page.waitForFunction(() => (globalThis as any).document.getElementById('graph-canvas')?.dataset.nodes !== undefined);

    // A theme: a community of the graph, its summary read from passages, its entities one click away.
    const [theme] = await api.graph.communities({ level: 0, limit: 10 });
    assert.ok(theme, 'the graph has communities');
    await page.locator('#graph-themes button', { hasText: theme.title }).click();
    await page.locator('#graph-entity-name', { hasText: theme.title }).waitFor();
    assert.equal(await page.locator('#graph-theme-entities li').count(), theme.entityIds.length);
    await page.locator('#graph-theme-entities button').first().click();
    await page.waitForFunction(
      (id) => (globalThis as any).document.getElementById('graph-canvas')?.dataset.centre === id,
      theme.entityIds[0],
    );

    // No entity by that name: said so.
    await page.getByLabel('Entity', { exact: true }).fill('Zyxwv');
    await page.getByRole('button', { name: 'Find' }).click();
    await page.getByText('No entity named "Zyxwv".').waitFor();
    assert.deepEqual(errors, []);
  });
});
