// The Dossier web page: a native ES module, no framework and no build step. Everything that comes
// from the server (answers, chunks, titles, errors) is untrusted and is only ever inserted as text
// (textContent or text nodes), never as HTML.

const KEY_STORAGE = 'dossier.apiKey';
/** `[E3]`, `[E2, E1]`, `[unresolved: E5]`: the citation markers an answer may carry. */
const CITATION = /\[(unresolved: )?(E\d+(?:\s*[,;]\s*E\d+)*)\]/g;

const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

/** A new element with text and attributes; children are nodes or strings (strings become text nodes). */
function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'className') node.className = value;
    else if (name === 'text') node.textContent = String(value);
    else if (name === 'onclick') node.addEventListener('click', value);
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children) if (child !== undefined && child !== null) node.append(typeof child === 'string' ? document.createTextNode(child) : child);
  return node;
}

const status = (message, kind = 'info') => {
  const box = $('status');
  box.textContent = message;
  box.dataset.kind = kind;
};

const formatMs = (ms) => (ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`);
const formatTokens = (usage) => (usage ? `${usage.inputTokens} in / ${usage.outputTokens} out tokens` : '');
const truncate = (text, n) => (text.length > n ? `${text.slice(0, n - 1)}…` : text);

// ---------------------------------------------------------------------------------------------
// API: every call carries the key when one is set; a 401 asks for a key.

class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

function authHeaders(extra) {
  const headers = new Headers(extra);
  const key = sessionStorage.getItem(KEY_STORAGE);
  if (key) headers.set('authorization', `Bearer ${key}`);
  return headers;
}

async function api(path, options = {}) {
  const response = await fetch(path, { ...options, headers: authHeaders(options.headers) });
  if (response.ok) return response;
  let error = { code: 'failed', message: `${response.status} ${response.statusText}` };
  try {
    error = (await response.json()).error ?? error;
  } catch {
    // Not JSON (a proxy's page): the status line says enough.
  }
  if (response.status === 401) askForKey(error.message);
  throw new ApiError(response.status, error.code, error.message);
}

const getJson = async (path) => (await api(path)).json();
const sendJson = async (path, method, body) => (await api(path, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json();

function reportError(error) {
  if (error?.name === 'AbortError') return;
  if (error instanceof ApiError && error.status === 401) return; // the key form says it
  status(error instanceof Error ? error.message : String(error), 'error');
}

// ---------------------------------------------------------------------------------------------
// API key (only when the server runs with --auth keys).

function askForKey(message) {
  $('key-form-section').hidden = false;
  $('key-error').textContent = sessionStorage.getItem(KEY_STORAGE) ? message : '';
  $('key-status').hidden = true;
  $('api-key').focus();
}

$('key-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const input = /** @type {HTMLInputElement} */ ($('api-key'));
  sessionStorage.setItem(KEY_STORAGE, input.value.trim());
  input.value = '';
  try {
    await loadCollections();
    $('key-form-section').hidden = true;
    $('key-status').hidden = false;
    status('Signed in with the API key.');
    await Promise.all([loadConversations(), loadDocuments()]);
  } catch (error) {
    // A key the server refused is not kept (the form shows why).
    if (error instanceof ApiError && error.status === 401) sessionStorage.removeItem(KEY_STORAGE);
    reportError(error);
  }
});

$('forget-key').addEventListener('click', () => {
  sessionStorage.removeItem(KEY_STORAGE);
  $('key-status').hidden = true;
  askForKey('');
});

// ---------------------------------------------------------------------------------------------
// Tabs: Ask and Documents (arrow keys move between tabs, as in the ARIA tabs pattern).

const tabs = [...document.querySelectorAll('[role="tab"]')];
function selectTab(tab) {
  for (const other of tabs) {
    const selected = other === tab;
    other.setAttribute('aria-selected', String(selected));
    other.tabIndex = selected ? 0 : -1;
    $(other.getAttribute('aria-controls')).hidden = !selected;
  }
  if (tab.id === 'tab-documents') loadDocuments().catch(reportError);
}
for (const tab of tabs) {
  tab.addEventListener('click', () => selectTab(tab));
  tab.addEventListener('keydown', (event) => {
    const at = tabs.indexOf(tab);
    const next = event.key === 'ArrowRight' ? tabs[(at + 1) % tabs.length] : event.key === 'ArrowLeft' ? tabs[(at - 1 + tabs.length) % tabs.length] : undefined;
    if (!next) return;
    event.preventDefault();
    next.focus();
    selectTab(next);
  });
}

// ---------------------------------------------------------------------------------------------
// Answers with clickable citation markers.

/**
 * Renders an answer into `container`: one block per line (`#` lines as headings, `-` lines as list
 * items), every `[E3]` a button that opens the cited chunk. `lookup(id)` gives the citation, once known.
 */
function renderAnswer(container, text, lookup) {
  const blocks = [];
  let list;
  for (const line of text.split('\n')) {
    if (!line.trim()) {
      list = undefined;
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    const item = /^\s*[-*]\s+(.*)$/.exec(line);
    if (heading) {
      list = undefined;
      blocks.push(withCitations(el(heading[1].length <= 2 ? 'h3' : 'h4'), heading[2], lookup));
    } else if (item) {
      if (!list) blocks.push((list = el('ul')));
      list.append(withCitations(el('li'), item[1], lookup));
    } else {
      list = undefined;
      blocks.push(withCitations(el('p'), line, lookup));
    }
  }
  container.replaceChildren(...blocks);
}

function withCitations(block, text, lookup) {
  let at = 0;
  for (const match of text.matchAll(CITATION)) {
    if (match.index > at) block.append(text.slice(at, match.index));
    const ids = match[2].split(/\s*[,;]\s*/);
    const group = el('span', { className: 'cites' });
    for (const id of ids) {
      if (match[1]) {
        group.append(el('span', { className: 'cite unresolved', title: `${id}: this citation does not match any passage read`, text: `${id}?` }));
        continue;
      }
      const citation = lookup(id);
      group.append(
        el('button', {
          type: 'button',
          className: citation ? 'cite' : 'cite pending',
          'data-cite': id,
          'aria-label': citation ? `Citation ${id}: ${citation.title}` : `Citation ${id}`,
          text: id,
        }),
      );
    }
    block.append(group);
    at = match.index + match[0].length;
  }
  if (at < text.length) block.append(text.slice(at));
  return block;
}

/** One listener for every marker on the page; the marker's message knows its citations. */
document.addEventListener('click', (event) => {
  const button = event.target instanceof Element ? event.target.closest('button[data-cite]') : null;
  if (!button) return;
  const holder = button.closest('[data-citations]');
  const citation = holder ? citationsOf(holder).get(button.dataset.cite) : undefined;
  if (citation) openCitation(citation, button);
  else openPanel(button.dataset.cite, [el('p', { text: 'This citation is not resolved yet; it arrives with the answer.' })], button);
});

/** The citations an answer element holds, by id (set by the run view or the loaded message). */
const citationStore = new WeakMap();
function citationsOf(holder) {
  let map = citationStore.get(holder);
  if (!map) citationStore.set(holder, (map = new Map()));
  return map;
}

// ---------------------------------------------------------------------------------------------
// The side panel: a cited chunk with its document, or a document with its chunks.

let panelOpener = null;
function openPanel(title, body, opener) {
  panelOpener = opener ?? null;
  $('panel-title').textContent = title;
  $('panel-body').replaceChildren(...body);
  $('panel').hidden = false;
  $('panel').focus();
}
function closePanel() {
  $('panel').hidden = true;
  panelOpener?.focus();
  panelOpener = null;
}
$('panel-close').addEventListener('click', closePanel);
document.addEventListener('keydown', (event) => {
  if (event.key === 'Escape' && !$('panel').hidden) closePanel();
});

function details(rows) {
  const list = el('dl', { className: 'facts' });
  for (const [name, value] of rows) if (value !== undefined && value !== '') list.append(el('dt', { text: name }), el('dd', { text: value }));
  return list;
}

function openCitation(citation, opener) {
  const heading = citation.headingPath?.length ? citation.headingPath.join(' › ') : '—';
  const docBox = el('div', { className: 'doc-context' }, el('p', { className: 'muted', text: 'Loading the document…' }));
  openPanel(
    citation.title,
    [
      el('p', { className: 'cite-id', text: `Evidence ${citation.id}` }),
      details([
        ['Source', citation.source],
        ['Heading path', heading],
        ['Page', citation.page !== undefined && citation.page !== null ? String(citation.page) : '—'],
        ['Characters', `${citation.charStart}–${citation.charEnd}`],
      ]),
      el('h3', { text: 'Cited passage' }),
      el('blockquote', { className: 'chunk-text', 'data-chunk-id': citation.chunkId, text: citation.text }),
      docBox,
    ],
    opener,
  );
  loadDocumentContext(citation, docBox).catch((error) => docBox.replaceChildren(el('p', { className: 'error', text: `The document could not be loaded: ${error.message}` })));
}

/** The document's own facts and the passages around the cited one. */
async function loadDocumentContext(citation, box) {
  const [{ document: doc }, { chunks }] = await Promise.all([getJson(`/v1/documents/${citation.documentId}`), getJson(`/v1/documents/${citation.documentId}/chunks`)]);
  const at = chunks.findIndex((chunk) => chunk.id === citation.chunkId);
  const around = el('div', { className: 'around' });
  for (const chunk of [chunks[at - 1], chunks[at + 1]]) {
    if (!chunk) continue;
    around.append(el('p', { className: 'muted', text: chunk.ordinal < chunks[at].ordinal ? 'Before' : 'After' }), el('blockquote', { className: 'chunk-text dim', text: chunk.text }));
  }
  box.replaceChildren(
    el('h3', { text: 'Document' }),
    details([
      ['Collection', doc.collection],
      ['Type', doc.mediaType],
      ['Size', doc.bytes !== undefined ? `${doc.bytes} bytes` : undefined],
      ['Chunks', at >= 0 ? `passage ${at + 1} of ${chunks.length}` : String(chunks.length)],
      ['Updated', doc.updatedAt ? new Date(doc.updatedAt).toLocaleString() : undefined],
    ]),
    ...(doc.description ? [el('p', { className: 'description', text: doc.description })] : []),
    ...(around.childElementCount ? [el('details', {}, el('summary', { text: 'Surrounding passages' }), around)] : []),
  );
}

async function openDocument(id, opener) {
  openPanel('Loading…', [], opener);
  try {
    const [{ document: doc }, { chunks }] = await Promise.all([getJson(`/v1/documents/${id}`), getJson(`/v1/documents/${id}/chunks`)]);
    const list = el('ol', { className: 'chunk-list' });
    for (const chunk of chunks) {
      list.append(el('li', {}, el('p', { className: 'muted', text: [chunk.headingPath?.join(' › '), chunk.page ? `page ${chunk.page}` : ''].filter(Boolean).join(' · ') || `passage ${chunk.ordinal + 1}` }), el('blockquote', { className: 'chunk-text', text: chunk.text })));
    }
    openPanel(doc.title, [details([['Source', doc.source], ['Collection', doc.collection], ['Type', doc.mediaType], ['Size', `${doc.bytes} bytes`]]), ...(doc.description ? [el('p', { className: 'description', text: doc.description })] : []), el('h3', { text: `${chunks.length} passages` }), list], opener);
  } catch (error) {
    openPanel('Document', [el('p', { className: 'error', text: error.message })], opener);
  }
}

// ---------------------------------------------------------------------------------------------
// A run's events: the streamed answer, the research tree and the timeline.

/** The nested agent an event belongs to (`["research","rag:2"]` → "rag:2"); undefined at top level. */
const agentOf = (event) => (event.path?.length ? event.path[event.path.length - 1] : undefined);

function toolInputText(toolName, input) {
  if (input && typeof input === 'object') {
    if (typeof input.query === 'string') return input.query;
    if (typeof input.question === 'string') return input.question;
    if (typeof input.url === 'string') return input.url;
    if (typeof input.brief === 'string') return input.brief;
    if (typeof input.draft === 'string') return truncate(input.draft.replace(/\s+/g, ' '), 120);
  }
  return truncate(JSON.stringify(input ?? {}), 120);
}

class RunView {
  /** `answerEl` receives the streamed answer; `metaEl` the finish line. */
  constructor(answerEl, metaEl) {
    this.answerEl = answerEl;
    this.metaEl = metaEl;
    this.text = '';
    this.citations = citationsOf(answerEl);
    this.lastSeq = 0;
    this.finished = false;
    this.steps = new Map();
    this.toolRows = new Map();
    this.planItems = new Map();
    this.agents = new Map();
    this.ragCalls = new Map();
    answerEl.dataset.citations = '';
    resetRunPanels();
  }

  handle(event, seq) {
    if (seq !== undefined) {
      if (seq <= this.lastSeq) return; // already seen (a resumed stream starts after Last-Event-ID)
      this.lastSeq = seq;
    }
    this.timeline(event);
    const agent = agentOf(event);
    if (agent) return this.nested(agent, event);
    switch (event.type) {
      case 'run-start':
        $('timeline-section').hidden = false;
        if (event.mode === 'research') $('research-section').hidden = false;
        break;
      case 'text-delta':
        this.text += event.delta;
        this.render();
        break;
      case 'citation':
        this.citations.set(event.citation.id, event.citation);
        this.render();
        break;
      case 'final-answer':
        this.text = event.answer;
        for (const citation of event.citations) this.citations.set(citation.id, citation);
        this.render();
        if (event.partial) this.metaEl.append(el('span', { className: 'badge warn', text: 'partial' }));
        break;
      case 'error':
        this.answerEl.after(el('p', { className: 'error', role: 'alert', text: `${event.code}: ${event.message}` }));
        break;
      case 'plan':
        this.plan(event);
        break;
      case 'tool-call':
        if (event.toolName === 'rag' && event.input?.question) this.ragCalls.set(event.input.question, event.input.subQuestion);
        else if (!['plan', 'rag', 'critique'].includes(event.toolName)) this.treeTool(this.treeRoot(), event);
        break;
      case 'tool-result':
        this.treeToolResult(event);
        break;
      case 'subagent-start':
        this.subagentStart(event);
        break;
      case 'subagent-finish':
        this.subagentFinish(event);
        break;
      case 'critique':
        this.critique(event);
        break;
      case 'run-finish':
        this.finish(event);
        break;
    }
  }

  render() {
    renderAnswer(this.answerEl, this.text, (id) => this.citations.get(id));
  }

  finish(event) {
    this.finished = true;
    this.answerEl.setAttribute('aria-busy', 'false');
    if (!this.text.trim()) this.answerEl.replaceChildren(el('p', { className: 'muted', text: 'No answer.' }));
    const reason = el('span', { className: `badge ${event.finishReason === 'stop' ? 'ok' : 'warn'}`, text: event.finishReason });
    this.metaEl.prepend(reason, ` ${event.steps} steps · ${event.toolCalls} tool calls · ${formatTokens(event.usage)} · ${formatMs(event.ms)} `);
    $('timeline-total').textContent = `${event.steps} steps, ${event.toolCalls} tool calls, ${formatTokens(event.usage)}, ${formatMs(event.ms)} in all (finish: ${event.finishReason})`;
  }

  // --- timeline: every agent's steps, with model and tool latency and tokens

  stepRow(event) {
    const agent = agentOf(event) ?? '';
    const key = `${agent}#${event.step}`;
    let row = this.steps.get(key);
    if (!row) {
      const list = el('ul', { className: 'step-items' });
      const li = el('li', { className: agent ? 'step nested' : 'step' }, el('div', { className: 'step-head' }, agent ? el('span', { className: 'agent', text: event.path.join(' › ') }) : null, el('span', { text: `Step ${event.step}` })), list);
      $('timeline').append(li);
      row = { li, list };
      this.steps.set(key, row);
    }
    return row;
  }

  timeline(event) {
    if (event.step === undefined) return;
    const toolKey = () => `${agentOf(event) ?? ''}#${event.toolCallId}`;
    switch (event.type) {
      case 'step-start':
        this.stepRow(event);
        break;
      case 'model-output': {
        const calls = event.toolCalls?.length ?? 0;
        this.stepRow(event).list.append(
          el('li', { className: 'model' }, el('span', { className: 'kind', text: 'model' }), ` ${calls ? `${calls} tool call${calls === 1 ? '' : 's'}` : 'answer'} · `, el('span', { className: 'ms', text: formatMs(event.ms) }), ' · ', el('span', { className: 'tokens', text: formatTokens(event.usage) })),
        );
        break;
      }
      case 'tool-call': {
        const result = el('span', { className: 'result muted', text: 'running…' });
        const li = el('li', { className: 'tool' }, el('span', { className: 'kind', text: event.toolName }), ' ', el('q', { text: toolInputText(event.toolName, event.input) }), ' ', result);
        this.stepRow(event).list.append(li);
        this.toolRows.set(toolKey(), { li, result });
        break;
      }
      case 'tool-result': {
        const row = this.toolRows.get(toolKey());
        if (!row) break;
        row.li.classList.toggle('failed', !event.ok);
        row.result.className = 'result';
        row.result.replaceChildren(`→ ${event.summary} · `, el('span', { className: 'ms', text: formatMs(event.ms) }));
        break;
      }
      case 'error':
        this.stepRow(event).list.append(el('li', { className: 'failed', text: `error ${event.code}: ${event.message}` }));
        break;
    }
  }

  // --- research tree: plan items, nested agents under them, their searches

  treeRoot() {
    return $('research-tree');
  }

  plan(event) {
    $('research-section').hidden = false;
    $('plan-brief').textContent = event.brief;
    for (const item of event.items) {
      let node = this.planItems.get(item.id);
      if (!node) {
        const badge = el('span', { className: 'badge' });
        const children = el('ul', { className: 'agents' });
        const li = el('li', { className: 'plan-item', 'data-plan-id': item.id }, el('div', { className: 'node-head' }, badge, ' ', el('strong', { text: item.id }), ' ', el('span', { className: 'question', text: item.question })), children);
        this.treeRoot().append(li);
        node = { li, badge, children, question: item.question };
        this.planItems.set(item.id, node);
      }
      node.badge.textContent = item.status;
      node.badge.className = `badge status-${item.status}`;
      node.li.dataset.status = item.status;
    }
  }

  subagentStart(event) {
    const planId = this.ragCalls.get(event.question);
    const plan = (planId && this.planItems.get(planId)) || [...this.planItems.values()].find((item) => item.question === event.question);
    const parent = event.path?.length ? this.agents.get(agentOf(event))?.children : plan?.children;
    this.agentNode(event.id, event.question, parent ?? this.treeRoot());
  }

  agentNode(id, question, parent) {
    let node = this.agents.get(id);
    if (node) return node;
    const state = el('span', { className: 'badge status-open', text: 'running' });
    const searches = el('ul', { className: 'searches' });
    const children = el('ul', { className: 'agents' });
    const li = el('li', { className: 'agent-node', 'data-agent-id': id }, el('div', { className: 'node-head' }, el('span', { className: 'agent', text: id }), ' ', state, ' ', el('span', { className: 'question', text: question ?? '' })), searches, children);
    (parent ?? this.treeRoot()).append(li);
    node = { li, state, searches, children };
    this.agents.set(id, node);
    return node;
  }

  subagentFinish(event) {
    const node = this.agents.get(event.id) ?? this.agentNode(event.id, '', this.treeRoot());
    node.state.textContent = `${event.finishReason} · ${event.citations} cited · ${formatMs(event.ms)}`;
    node.state.className = `badge ${event.finishReason === 'stop' ? 'status-answered' : 'status-failed'}`;
    if (event.error) node.li.append(el('p', { className: 'error', text: event.error }));
  }

  nested(agent, event) {
    const node = this.agents.get(agent) ?? this.agentNode(agent, '', this.treeRoot());
    if (event.type === 'tool-call') this.treeTool(node.searches, event);
    else if (event.type === 'tool-result') this.treeToolResult(event);
    else if (event.type === 'subagent-start') this.subagentStart(event);
    else if (event.type === 'subagent-finish') this.subagentFinish(event);
  }

  treeTool(list, event) {
    const result = el('span', { className: 'muted', text: '…' });
    const li = el('li', { className: 'search' }, el('span', { className: 'kind', text: event.toolName === 'search_knowledge' ? 'search' : event.toolName }), ' ', el('q', { text: toolInputText(event.toolName, event.input) }), ' ', result);
    list.append(li);
    this.toolRows.set(`tree:${agentOf(event) ?? ''}#${event.toolCallId}`, { li, result });
  }

  treeToolResult(event) {
    const row = this.toolRows.get(`tree:${agentOf(event) ?? ''}#${event.toolCallId}`);
    if (!row) return;
    row.li.classList.toggle('failed', !event.ok);
    row.result.className = 'result';
    row.result.textContent = `${event.summary} · ${formatMs(event.ms)}`;
  }

  critique(event) {
    $('critique').hidden = false;
    const counts = {};
    for (const check of event.checks) counts[check.verdict] = (counts[check.verdict] ?? 0) + 1;
    const parts = Object.entries(counts).map(([verdict, n]) => `${n} ${verdict}`);
    $('critique-summary').textContent = `${event.checks.length} claims checked: ${parts.join(', ') || 'none'}; ${event.openQuestions.length} open questions.`;
    const findings = event.checks.filter((check) => check.verdict !== 'supported').map((check) => el('li', {}, el('span', { className: `badge status-failed`, text: check.verdict }), ' ', el('span', { text: truncate(check.claim, 160) }), el('span', { className: 'muted', text: ` (${check.reason})` })));
    for (const question of event.openQuestions) findings.push(el('li', {}, el('span', { className: 'badge', text: 'open' }), ' ', el('span', { text: question })));
    $('critique-findings').replaceChildren(...findings);
  }
}

function resetRunPanels() {
  for (const id of ['timeline', 'research-tree', 'critique-findings']) $(id).replaceChildren();
  for (const id of ['timeline-total', 'plan-brief', 'critique-summary']) $(id).textContent = '';
  $('research-section').hidden = true;
  $('critique').hidden = true;
}

/**
 * Reads a Server-Sent Events body (`event:`, `id:`, `data:` lines, blank line between events) and
 * hands each event with its number to `onEvent`.
 */
async function readEvents(response, onEvent) {
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    for (let end = /\r?\n\r?\n/.exec(buffer); end; end = /\r?\n\r?\n/.exec(buffer)) {
      const block = buffer.slice(0, end.index);
      buffer = buffer.slice(end.index + end[0].length);
      let id;
      const data = [];
      for (const line of block.split(/\r?\n/)) {
        if (line.startsWith('id:')) id = Number(line.slice(3).trim());
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      if (data.length) onEvent(JSON.parse(data.join('\n')), id);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Conversations and the thread.

let openConversation = null; // {id, title} or null: the next question starts one
let following = null; // the AbortController of the stream being read

async function loadConversations() {
  const { conversations } = await getJson('/v1/conversations');
  const list = $('conversation-list');
  list.replaceChildren(
    ...conversations.map((conversation) =>
      el(
        'li',
        {},
        el('button', { type: 'button', className: 'conversation', 'data-conversation-id': conversation.id, 'aria-current': openConversation?.id === conversation.id ? 'true' : undefined, onclick: () => openConversationById(conversation.id).catch(reportError) }, el('span', { className: 'title', text: conversation.title }), el('span', { className: 'muted', text: new Date(conversation.createdAt).toLocaleString() })),
      ),
    ),
  );
  $('conversation-empty').hidden = conversations.length > 0;
}

function markOpenConversation() {
  for (const button of document.querySelectorAll('#conversation-list button')) {
    if (button.dataset.conversationId === openConversation?.id) button.setAttribute('aria-current', 'true');
    else button.removeAttribute('aria-current');
  }
  $('thread-title').textContent = openConversation?.title ?? 'New conversation';
}

async function openConversationById(id) {
  following?.abort();
  const conversation = await getJson(`/v1/conversations/${encodeURIComponent(id)}`);
  openConversation = { id: conversation.id, title: conversation.title };
  markOpenConversation();
  resetRunPanels();
  $('timeline-section').hidden = true;
  $('thread').replaceChildren();
  for (const message of conversation.messages) {
    if (message.role === 'user') appendQuestion(message.content);
    else {
      const { answerEl, metaEl } = appendAnswer(message.runId);
      for (const citation of message.citations ?? []) citationsOf(answerEl).set(citation.id, citation);
      renderAnswer(answerEl, message.content, (cid) => citationsOf(answerEl).get(cid));
      answerEl.setAttribute('aria-busy', 'false');
      metaEl.textContent = new Date(message.createdAt).toLocaleString();
    }
  }
  $('question').focus();
}

$('new-conversation').addEventListener('click', () => {
  following?.abort();
  openConversation = null;
  markOpenConversation();
  $('thread').replaceChildren();
  resetRunPanels();
  $('timeline-section').hidden = true;
  $('question').focus();
});

function appendQuestion(text) {
  const li = el('li', { className: 'msg user' }, el('span', { className: 'who', text: 'You' }), el('p', { className: 'question-text', text }));
  $('thread').append(li);
  return li;
}

function appendAnswer(runId) {
  const answerEl = el('div', { className: 'answer', 'aria-busy': 'true', 'aria-live': 'polite' });
  answerEl.dataset.citations = '';
  const metaEl = el('p', { className: 'meta muted' });
  const li = el('li', { className: 'msg assistant' }, el('span', { className: 'who', text: 'Dossier' }), answerEl, metaEl);
  if (runId) {
    // The run's stored events replay into the timeline and the research tree.
    metaEl.after(el('button', { type: 'button', className: 'link', text: 'Show run details', onclick: () => replayRun(runId).catch(reportError) }));
  }
  $('thread').append(li);
  li.scrollIntoView({ block: 'nearest' });
  return { answerEl, metaEl };
}

async function replayRun(runId) {
  const view = new RunView(el('div'), el('p'));
  const response = await api(`/v1/runs/${encodeURIComponent(runId)}/events`);
  await readEvents(response, (event, seq) => view.handle(event, seq));
  $('timeline-section').scrollIntoView({ block: 'nearest' });
}

async function ask(question, mode, collection) {
  following?.abort();
  const controller = (following = new AbortController());
  if (!openConversation) {
    const created = await sendJson('/v1/conversations', 'POST', { title: truncate(question.replace(/\s+/g, ' '), 80) });
    openConversation = { id: created.id, title: created.title };
    await loadConversations();
    markOpenConversation();
  }
  appendQuestion(question);
  const { answerEl, metaEl } = appendAnswer();
  answerEl.replaceChildren(el('p', { className: 'muted', text: mode === 'research' ? 'Planning…' : 'Searching…' }));
  const view = new RunView(answerEl, metaEl);
  const body = { question, mode, stream: true, conversationId: openConversation.id, ...(collection ? { collections: [collection] } : {}) };
  let response;
  try {
    response = await api('/v1/ask', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: controller.signal });
  } catch (error) {
    answerEl.replaceChildren(el('p', { className: 'error', text: `The question was not asked: ${error.message}` }));
    answerEl.setAttribute('aria-busy', 'false');
    throw error;
  }
  const runId = response.headers.get('x-dossier-run-id');
  const onEvent = (event, seq) => view.handle(event, seq);
  try {
    await readEvents(response, onEvent);
  } catch (error) {
    if (controller.signal.aborted) return;
  }
  // A dropped connection resumes where it stopped: the server replays from Last-Event-ID.
  for (let attempt = 1; !view.finished && runId && attempt <= 5 && !controller.signal.aborted; attempt++) {
    status(`Connection lost; resuming the run (attempt ${attempt})…`);
    await new Promise((resolve) => setTimeout(resolve, 300 * attempt));
    try {
      const resumed = await api(`/v1/runs/${encodeURIComponent(runId)}/events`, { headers: { 'last-event-id': String(view.lastSeq) }, signal: controller.signal });
      await readEvents(resumed, onEvent);
      status('');
    } catch (error) {
      if (controller.signal.aborted) return;
    }
  }
  if (!view.finished && !controller.signal.aborted) throw new Error('The event stream ended before the run finished.');
}

$('ask-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const form = /** @type {HTMLFormElement} */ (event.currentTarget);
  const question = /** @type {HTMLTextAreaElement} */ ($('question')).value.trim();
  if (!question) return;
  const mode = new FormData(form).get('mode') === 'research' ? 'research' : 'rag';
  const collection = /** @type {HTMLSelectElement} */ ($('collection')).value;
  const button = /** @type {HTMLButtonElement} */ ($('ask-button'));
  button.disabled = true;
  status('');
  /** @type {HTMLTextAreaElement} */ ($('question')).value = '';
  try {
    await ask(question, mode, collection);
  } catch (error) {
    reportError(error);
  } finally {
    button.disabled = false;
  }
});

// Enter asks; Shift+Enter is a new line.
$('question').addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    /** @type {HTMLFormElement} */ ($('ask-form')).requestSubmit();
  }
});

// ---------------------------------------------------------------------------------------------
// Collections and documents.

async function loadCollections() {
  const { collections } = await getJson('/v1/collections');
  const select = /** @type {HTMLSelectElement} */ ($('collection'));
  const chosen = select.value;
  select.replaceChildren(el('option', { value: '', text: 'All collections' }), ...collections.map((c) => el('option', { value: c.name, text: `${c.name} (${c.documents})` })));
  select.value = collections.some((c) => c.name === chosen) ? chosen : '';
  $('collection-names').replaceChildren(...collections.filter((c) => c.role !== 'reader').map((c) => el('option', { value: c.name })));
}

async function loadDocuments() {
  const { documents } = await getJson('/v1/documents?limit=1000');
  $('document-rows').replaceChildren(
    ...documents.map((doc) =>
      el(
        'tr',
        { 'data-document-id': doc.id },
        el('td', {}, el('button', { type: 'button', className: 'link', onclick: (event) => openDocument(doc.id, event.currentTarget) }, doc.title), el('div', { className: 'muted source', text: doc.source })),
        el('td', { text: doc.collection }),
        el('td', { text: doc.mediaType }),
        el('td', { className: 'num', text: doc.chunks }),
        el('td', { text: new Date(doc.updatedAt).toLocaleString() }),
        el('td', {}, el('button', { type: 'button', className: 'danger', 'aria-label': `Delete ${doc.title}`, onclick: () => deleteDocument(doc).catch(reportError) }, 'Delete')),
      ),
    ),
  );
  $('documents-empty').hidden = documents.length > 0;
}

async function deleteDocument(doc) {
  if (!confirm(`Delete “${doc.title}” with its passages from the index?`)) return;
  await api(`/v1/documents/${doc.id}`, { method: 'DELETE' });
  status(`Deleted “${doc.title}”.`);
  await Promise.all([loadDocuments(), loadCollections()]);
}

$('refresh-documents').addEventListener('click', () => loadDocuments().catch(reportError));

$('upload-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const form = /** @type {HTMLFormElement} */ (event.currentTarget);
  const data = new FormData(form);
  if (!String(data.get('metadata') ?? '').trim()) data.delete('metadata');
  const button = /** @type {HTMLButtonElement} */ ($('upload-button'));
  const bar = /** @type {HTMLProgressElement} */ ($('upload-bar'));
  const text = $('upload-progress-text');
  button.disabled = true;
  $('upload-progress').hidden = false;
  bar.removeAttribute('value'); // indeterminate until the job reports
  text.textContent = 'Uploading…';
  try {
    const { job } = await (await api('/v1/documents', { method: 'POST', body: data })).json();
    const finished = await pollJob(job.id, (progress) => {
      if (!progress?.total) return;
      bar.max = progress.total;
      bar.value = progress.done;
      text.textContent = `Ingesting: ${progress.done} of ${progress.total} files, ${progress.bytesDone} of ${progress.bytesTotal} bytes`;
    });
    bar.max = 1;
    bar.value = 1;
    if (finished.status === 'failed') throw new Error(`Ingestion failed: ${finished.error}`);
    const report = finished.report ?? {};
    const failures = (report.failed ?? []).map((f) => `${f.path.split('/').pop()}: ${f.error}`);
    text.textContent = `Done: ${report.ingested ?? 0} ingested, ${report.skipped ?? 0} unchanged, ${failures.length} failed${failures.length ? ` (${failures.join('; ')})` : ''}.`;
    text.dataset.state = failures.length ? 'failed' : 'finished';
    /** @type {HTMLInputElement} */ ($('upload-file')).value = '';
    await Promise.all([loadDocuments(), loadCollections()]);
  } catch (error) {
    text.textContent = error.message;
    text.dataset.state = 'failed';
    reportError(error);
  } finally {
    button.disabled = false;
  }
});

async function pollJob(id, onProgress) {
  for (;;) {
    const { job } = await getJson(`/v1/jobs/${encodeURIComponent(id)}`);
    onProgress(job.progress);
    if (job.status === 'finished' || job.status === 'failed') return job; // queued, then running
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

// ---------------------------------------------------------------------------------------------
// Start: a 401 here means the server wants a key (the form appears); otherwise load everything.

async function start() {
  try {
    await loadCollections();
    $('key-status').hidden = !sessionStorage.getItem(KEY_STORAGE);
    await Promise.all([loadConversations(), loadDocuments()]);
  } catch (error) {
    reportError(error);
  }
  document.body.dataset.ready = 'true';
}

start();
