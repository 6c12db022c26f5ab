// The Graph view: find an entity of the knowledge graph by name, see its neighbourhood drawn with
// cytoscape.js, and pick a node (on the picture or in the list beside it) to see that entity's
// relationships and the passages that state them. Names and passages go in as text only: the
// picture's labels are canvas text, the list and passages are text nodes (dom.ts).
import type { Core, ElementDefinition, StylesheetJson } from 'cytoscape';
import type { GraphCommunityView, GraphEntityDetail, GraphEntityView } from '../client/index.ts';
import { api, reportError } from './api.ts';
import { byId, el, showStatus } from './dom.ts';
import { passageNodes } from './rich-text.ts';

/** The renderer, loaded by URL the first time a neighbourhood is drawn (web/route.ts serves it). */
const CYTOSCAPE_URL = '/assets/vendor/cytoscape.js';
type Cytoscape = typeof import('cytoscape');
let renderer: Promise<Cytoscape> | undefined;
const loadRenderer = () => (renderer ??= (import(CYTOSCAPE_URL) as Promise<{ default: Cytoscape }>).then((m) => m.default));

let cy: Core | undefined;
/** The entity whose neighbourhood is shown. */
let centre: string | undefined;
/** The latest request wins: a slow answer for an earlier click is dropped. */
let shownRequest = 0;

const STYLE: StylesheetJson = [
  {
    selector: 'node',
    style: {
      label: 'data(label)',
      'background-color': '#5b7db1',
      color: '#1d2430',
      'font-size': 11,
      'text-valign': 'bottom',
      'text-margin-y': 4,
      'text-wrap': 'wrap',
      'text-max-width': '120px',
      width: 18,
      height: 18,
    },
  },
  { selector: 'node.centre', style: { 'background-color': '#c2571a', width: 28, height: 28, 'font-weight': 'bold' } },
  {
    selector: 'edge',
    style: {
      label: 'data(label)',
      width: 1.5,
      'line-color': '#9aa7b8',
      'target-arrow-color': '#9aa7b8',
      'target-arrow-shape': 'triangle',
      'curve-style': 'bezier',
      'font-size': 9,
      color: '#55606e',
      'text-rotation': 'autorotate',
      'text-background-color': '#ffffff',
      'text-background-opacity': 0.8,
    },
  },
];

export function setUpGraph(): void {
  byId('graph-form').addEventListener('submit', (event) => {
    event.preventDefault();
    findEntities(byId<HTMLInputElement>('graph-query').value.trim()).catch(reportError);
  });
  byId('graph-build').addEventListener('click', () => buildGraph().catch(reportError));
}

/** On opening the tab: the most mentioned entities, until the user searches. */
export async function loadGraph(): Promise<void> {
  cy?.resize();
  if (centre || byId('graph-results').childElementCount) return;
  await Promise.all([findEntities(''), loadThemes()]);
}

async function findEntities(query: string): Promise<void> {
  const entities = await api.graph.entities({ query: query || undefined, limit: 20 });
  const results = byId('graph-results');
  results.replaceChildren(
    ...entities.map((entity) =>
      el(
        'li',
        {},
        el(
          'button',
          { type: 'button', className: 'link', 'data-entity-id': entity.id, onclick: () => void showEntity(entity.id).catch(reportError) },
          entity.name,
        ),
        el('span', { className: 'muted', text: ` ${entity.type} · ${entity.collection} · ${entity.chunkIds.length} passages` }),
      ),
    ),
  );
  const empty = byId('graph-empty');
  empty.hidden = entities.length > 0;
  empty.textContent = query
    ? `No entity named "${query}".`
    : 'No knowledge graph yet: build one with the button above, or with "dossier graph build".';
  if (entities[0] && (query || !centre)) await showEntity(entities[0].id);
}

/** The graph's coarsest communities, largest first: a theme opens with its summary and its entities. */
async function loadThemes(): Promise<void> {
  const themes = await api.graph.communities({ level: 0, limit: 10 });
  byId('graph-themes-heading').hidden = themes.length === 0;
  byId('graph-themes').replaceChildren(
    ...themes.map((theme) =>
      el(
        'li',
        {},
        el(
          'button',
          { type: 'button', className: 'link', 'data-community-id': theme.id, onclick: () => void showTheme(theme).catch(reportError) },
          theme.title,
        ),
        el('span', { className: 'muted', text: ` ${theme.size} entities` }),
      ),
    ),
  );
}

async function showTheme(theme: GraphCommunityView): Promise<void> {
  const request = ++shownRequest;
  const names = new Map((await api.graph.entities({ collection: theme.collection, limit: 1000 })).map((e) => [e.id, e.name]));
  if (request !== shownRequest) return;
  byId('graph-detail').replaceChildren(
    el('h3', { id: 'graph-entity-name', text: theme.title }),
    el('p', {
      className: 'muted',
      text: `Theme · ${theme.collection} · ${theme.size} entities${theme.stale ? ' · out of date: build the graph again' : ''}`,
    }),
    el('blockquote', { className: 'chunk-text' }, ...passageNodes(theme.summary)),
    el('p', { className: 'muted', text: `Read from passages ${theme.chunkIds.join(', ')}` }),
    el('h4', { text: 'Entities' }),
    el(
      'ul',
      { id: 'graph-theme-entities', className: 'relationships' },
      ...theme.entityIds.map((id) =>
        el(
          'li',
          {},
          el(
            'button',
            { type: 'button', className: 'link', 'data-entity-id': id, onclick: () => void showEntity(id).catch(reportError) },
            names.get(id) ?? id,
          ),
        ),
      ),
    ),
  );
}

/** Builds (or brings up to date) the graphs of the collections the user may write, then lists the entities. */
async function buildGraph(): Promise<void> {
  const button = byId<HTMLButtonElement>('graph-build');
  button.disabled = true;
  try {
    showStatus('Building the knowledge graph…');
    const job = await api.graph.waitForBuild((await api.graph.build()).id, { intervalMs: 200, timeoutMs: 600_000 });
    if (job.status === 'failed') throw new Error(`The graph build failed: ${job.error ?? 'no reason given'}`);
    const report = job.report;
    showStatus(
      report
        ? `Graph built: ${report.entities} entities, ${report.relationships} relationships (${report.collections.join(', ')}).`
        : 'Graph built.',
    );
    centre = undefined;
    await Promise.all([findEntities(byId<HTMLInputElement>('graph-query').value.trim()), loadThemes()]);
  } finally {
    button.disabled = false;
  }
}

/** An entity: its neighbourhood drawn, its relationships and passages listed. */
export async function showEntity(id: string): Promise<void> {
  const request = ++shownRequest;
  const detail = await api.graph.entity(id);
  if (request !== shownRequest) return;
  centre = detail.entity.id;
  for (const button of byId('graph-results').querySelectorAll<HTMLElement>('button[data-entity-id]'))
    button.setAttribute('aria-current', String(button.dataset.entityId === centre));
  renderDetail(detail);
  await draw(detail);
}

/** The entity and its neighbours (the other end of each relationship), one node each. */
function neighbours(detail: GraphEntityDetail): Array<{ id: string; name: string }> {
  const found = new Map<string, string>();
  for (const r of detail.relationships) {
    if (r.subjectId !== detail.entity.id) found.set(r.subjectId, r.subject);
    if (r.objectId !== detail.entity.id) found.set(r.objectId, r.object);
  }
  return [...found].map(([id, name]) => ({ id, name }));
}

async function draw(detail: GraphEntityDetail): Promise<void> {
  const cytoscape = await loadRenderer();
  const { entity } = detail;
  const around = neighbours(detail);
  // One edge a direction between two entities, labelled with every predicate that joins them (a stated
  // one before mere co-occurrence), so parallel edges do not draw their labels over each other.
  const predicates = new Map<string, { source: string; target: string; labels: string[] }>();
  for (const r of detail.relationships) {
    const id = `${r.subjectId}>${r.objectId}`;
    const edge = predicates.get(id) ?? { source: r.subjectId, target: r.objectId, labels: [] };
    if (!edge.labels.includes(r.predicate)) edge.labels.push(r.predicate);
    predicates.set(id, edge);
  }
  const edges = [...predicates].map(([id, edge]): ElementDefinition => {
    const stated = edge.labels.filter((label) => label !== 'co-occurs');
    return {
      group: 'edges',
      data: { id, source: edge.source, target: edge.target, label: (stated.length ? stated : edge.labels).join(', ') },
    };
  });
  const elements: ElementDefinition[] = [
    { group: 'nodes', data: { id: entity.id, label: entity.name }, classes: 'centre' },
    ...around.map((node): ElementDefinition => ({ group: 'nodes', data: { id: node.id, label: node.name } })),
    ...edges,
  ];
  const container = byId('graph-canvas');
  if (!cy) {
    cy = cytoscape({ container, style: STYLE, minZoom: 0.3, maxZoom: 1.6, wheelSensitivity: 0.3 });
    cy.on('tap', 'node', (event) => {
      const id = event.target.id() as string;
      if (id !== centre) showEntity(id).catch(reportError);
    });
  }
  cy.elements().remove();
  cy.add(elements);
  cy.layout({
    name: 'concentric',
    concentric: (node) => (node.id() === entity.id ? 2 : 1),
    levelWidth: () => 1,
    minNodeSpacing: 110,
    animate: false,
    fit: true,
    padding: 30,
  }).run();
  container.dataset.nodes = String(cy.nodes().length);
  container.dataset.centre = entity.id;
  container.setAttribute('aria-label', `${entity.name} and ${around.length} related ${around.length === 1 ? 'entity' : 'entities'}`);
}

function renderDetail(detail: GraphEntityDetail): void {
  const { entity, relationships, passages } = detail;
  const relationshipItems = relationships.map((r) =>
    el(
      'li',
      {},
      entityButton(r.subjectId, r.subject, entity),
      el('span', { className: 'predicate', text: ` ${r.predicate} ` }),
      entityButton(r.objectId, r.object, entity),
      el('span', { className: 'muted', text: ` · passage${r.chunkIds.length === 1 ? '' : 's'} ${r.chunkIds.join(', ')}` }),
    ),
  );
  const passageItems = passages.map((p) =>
    el(
      'li',
      { 'data-chunk-id': p.chunkId },
      el('p', { className: 'muted', text: [`${p.title} · passage ${p.chunkId}`, p.headingPath.join(' › ')].filter(Boolean).join(' · ') }),
      el('blockquote', { className: 'chunk-text' }, ...passageNodes(p.text)),
    ),
  );
  byId('graph-detail').replaceChildren(
    el('h3', { id: 'graph-entity-name', text: entity.name }),
    el('p', {
      className: 'muted',
      text: `${entity.type} · ${entity.collection} · ${entity.mentions} mentions${entity.aliases.length ? ` · also ${entity.aliases.join(', ')}` : ''}`,
    }),
    ...(entity.description ? [el('p', { className: 'description', text: entity.description })] : []),
    el('h4', { text: relationships.length ? `${relationships.length} relationships` : 'No relationships' }),
    el('ul', { id: 'graph-relationships', className: 'relationships' }, ...relationshipItems),
    el('h4', { text: `${passages.length} passages` }),
    el('ol', { id: 'graph-passages', className: 'chunk-list' }, ...passageItems),
  );
}

/** A related entity's name as a button that shows it; the entity itself as plain text. */
function entityButton(id: string, name: string, current: GraphEntityView): Node {
  if (id === current.id) return el('strong', { text: name });
  return el(
    'button',
    { type: 'button', className: 'link', 'data-entity-id': id, onclick: () => void showEntity(id).catch(reportError) },
    name,
  );
}
