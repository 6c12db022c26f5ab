// A run's events on the page: the streamed answer, the research tree and the timeline.
import type { AgentEvent, Citation } from '../client/index.ts';
import { citationsOf, renderAnswer } from './answer.ts';
import { byId, el, formatMs, formatTokens, truncate } from './dom.ts';

type EventOf<T extends AgentEvent['type']> = Extract<AgentEvent, { type: T }>;
interface ToolRow {
  li: HTMLLIElement;
  result: HTMLSpanElement;
}
interface StepRow {
  li: HTMLLIElement;
  list: HTMLUListElement;
}
interface PlanNode {
  li: HTMLLIElement;
  badge: HTMLSpanElement;
  children: HTMLUListElement;
  question: string;
}
interface AgentNode {
  li: HTMLLIElement;
  state: HTMLSpanElement;
  searches: HTMLUListElement;
  children: HTMLUListElement;
}

/** The nested agent an event belongs to (`["research","rag:2"]` → "rag:2"); undefined at top level. */
const agentOf = (event: { path?: string[] }) => (event.path?.length ? event.path[event.path.length - 1] : undefined);

function toolInputText(input: unknown): string {
  if (input && typeof input === 'object') {
    const fields = input as Record<string, unknown>;
    if (typeof fields.query === 'string') return fields.query;
    if (typeof fields.question === 'string') return fields.question;
    if (typeof fields.url === 'string') return fields.url;
    if (typeof fields.brief === 'string') return fields.brief;
    if (typeof fields.draft === 'string') return truncate(fields.draft.replace(/\s+/g, ' '), 120);
  }
  return truncate(JSON.stringify(input ?? {}), 120);
}

export function resetRunPanels(): void {
  for (const id of ['timeline', 'research-tree', 'critique-findings']) byId(id).replaceChildren();
  for (const id of ['timeline-total', 'plan-brief', 'critique-summary']) byId(id).textContent = '';
  byId('research-section').hidden = true;
  byId('critique').hidden = true;
}

export class RunView {
  private text = '';
  private readonly citations: Map<string, Citation>;
  /** The number of the last event shown. */
  lastSeq = 0;
  finished = false;
  private readonly steps = new Map<string, StepRow>();
  private readonly toolRows = new Map<string, ToolRow>();
  private readonly planItems = new Map<string, PlanNode>();
  private readonly agents = new Map<string, AgentNode>();
  /** A rag tool call's question → the plan item it answers. */
  private readonly ragCalls = new Map<string, string | undefined>();

  /** `answerEl` receives the streamed answer; `metaEl` the finish line. */
  constructor(
    private readonly answerEl: HTMLElement,
    private readonly metaEl: HTMLElement,
  ) {
    this.citations = citationsOf(answerEl);
    answerEl.dataset.citations = '';
    resetRunPanels();
  }

  handle(event: AgentEvent, seq?: number): void {
    if (seq !== undefined) {
      if (seq <= this.lastSeq) return; // already seen
      this.lastSeq = seq;
    }
    this.timeline(event);
    const agent = agentOf(event);
    if (agent) {
      this.nested(agent, event);
      return;
    }
    switch (event.type) {
      case 'run-start':
        byId('timeline-section').hidden = false;
        if (event.mode === 'research') byId('research-section').hidden = false;
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
      case 'tool-call': {
        const input = event.input as { question?: unknown; subQuestion?: unknown } | undefined;
        if (event.toolName === 'rag' && input?.question) this.ragCalls.set(String(input.question), input.subQuestion as string | undefined);
        else if (!['plan', 'rag', 'critique'].includes(event.toolName)) this.treeTool(this.treeRoot(), event);
        break;
      }
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

  private render(): void {
    renderAnswer(this.answerEl, this.text, (id) => this.citations.get(id));
  }

  private finish(event: EventOf<'run-finish'>): void {
    this.finished = true;
    this.answerEl.setAttribute('aria-busy', 'false');
    if (!this.text.trim()) this.answerEl.replaceChildren(el('p', { className: 'muted', text: 'No answer.' }));
    const reason = el('span', { className: `badge ${event.finishReason === 'stop' ? 'ok' : 'warn'}`, text: event.finishReason });
    this.metaEl.prepend(
      reason,
      ` ${event.steps} steps · ${event.toolCalls} tool calls · ${formatTokens(event.usage)} · ${formatMs(event.ms)} `,
    );
    byId('timeline-total').textContent =
      `${event.steps} steps, ${event.toolCalls} tool calls, ${formatTokens(event.usage)}, ${formatMs(event.ms)} in all (finish: ${event.finishReason})`;
  }

  // The timeline: every agent's steps, with model and tool latency and tokens.

  private stepRow(event: { step: number; path?: string[] }): StepRow {
    const agent = agentOf(event) ?? '';
    const key = `${agent}#${event.step}`;
    let row = this.steps.get(key);
    if (!row) {
      const list = el('ul', { className: 'step-items' });
      const li = el(
        'li',
        { className: agent ? 'step nested' : 'step' },
        el(
          'div',
          { className: 'step-head' },
          agent ? el('span', { className: 'agent', text: event.path!.join(' › ') }) : null,
          el('span', { text: `Step ${event.step}` }),
        ),
        list,
      );
      byId('timeline').append(li);
      row = { li, list };
      this.steps.set(key, row);
    }
    return row;
  }

  private timeline(event: AgentEvent): void {
    if (!('step' in event)) return;
    const toolKey = (toolCallId: string) => `${agentOf(event) ?? ''}#${toolCallId}`;
    switch (event.type) {
      case 'step-start':
        this.stepRow(event);
        break;
      case 'model-output': {
        const calls = event.toolCalls?.length ?? 0;
        this.stepRow(event).list.append(
          el(
            'li',
            { className: 'model' },
            el('span', { className: 'kind', text: 'model' }),
            ` ${calls ? `${calls} tool call${calls === 1 ? '' : 's'}` : 'answer'} · `,
            el('span', { className: 'ms', text: formatMs(event.ms) }),
            ' · ',
            el('span', { className: 'tokens', text: formatTokens(event.usage) }),
          ),
        );
        break;
      }
      case 'tool-call': {
        const result = el('span', { className: 'result muted', text: 'running…' });
        const li = el(
          'li',
          { className: 'tool' },
          el('span', { className: 'kind', text: event.toolName }),
          ' ',
          el('q', { text: toolInputText(event.input) }),
          ' ',
          result,
        );
        this.stepRow(event).list.append(li);
        this.toolRows.set(toolKey(event.toolCallId), { li, result });
        break;
      }
      case 'tool-result': {
        const row = this.toolRows.get(toolKey(event.toolCallId));
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

  // The research tree: plan items, nested agents under them, their searches.

  private treeRoot(): HTMLElement {
    return byId('research-tree');
  }

  private plan(event: EventOf<'plan'>): void {
    byId('research-section').hidden = false;
    byId('plan-brief').textContent = event.brief;
    for (const item of event.items) {
      let node = this.planItems.get(item.id);
      if (!node) {
        const badge = el('span', { className: 'badge' });
        const children = el('ul', { className: 'agents' });
        const li = el(
          'li',
          { className: 'plan-item', 'data-plan-id': item.id },
          el(
            'div',
            { className: 'node-head' },
            badge,
            ' ',
            el('strong', { text: item.id }),
            ' ',
            el('span', { className: 'question', text: item.question }),
          ),
          children,
        );
        this.treeRoot().append(li);
        node = { li, badge, children, question: item.question };
        this.planItems.set(item.id, node);
      }
      node.badge.textContent = item.status;
      node.badge.className = `badge status-${item.status}`;
      node.li.dataset.status = item.status;
    }
  }

  private subagentStart(event: EventOf<'subagent-start'>): void {
    const planId = this.ragCalls.get(event.question);
    const plan = (planId && this.planItems.get(planId)) || [...this.planItems.values()].find((item) => item.question === event.question);
    const parent = event.path?.length ? this.agents.get(agentOf(event)!)?.children : plan?.children;
    this.agentNode(event.id, event.question, parent ?? this.treeRoot());
  }

  private agentNode(id: string, question: string, parent: HTMLElement): AgentNode {
    let node = this.agents.get(id);
    if (node) return node;
    const state = el('span', { className: 'badge status-open', text: 'running' });
    const searches = el('ul', { className: 'searches' });
    const children = el('ul', { className: 'agents' });
    const li = el(
      'li',
      { className: 'agent-node', 'data-agent-id': id },
      el(
        'div',
        { className: 'node-head' },
        el('span', { className: 'agent', text: id }),
        ' ',
        state,
        ' ',
        el('span', { className: 'question', text: question ?? '' }),
      ),
      searches,
      children,
    );
    parent.append(li);
    node = { li, state, searches, children };
    this.agents.set(id, node);
    return node;
  }

  private subagentFinish(event: EventOf<'subagent-finish'>): void {
    const node = this.agents.get(event.id) ?? this.agentNode(event.id, '', this.treeRoot());
    node.state.textContent = `${event.finishReason} · ${event.citations} cited · ${formatMs(event.ms)}`;
    node.state.className = `badge ${event.finishReason === 'stop' ? 'status-answered' : 'status-failed'}`;
    if (event.error) node.li.append(el('p', { className: 'error', text: event.error }));
  }

  private nested(agent: string, event: AgentEvent): void {
    const node = this.agents.get(agent) ?? this.agentNode(agent, '', this.treeRoot());
    if (event.type === 'tool-call') this.treeTool(node.searches, event);
    else if (event.type === 'tool-result') this.treeToolResult(event);
    else if (event.type === 'subagent-start') this.subagentStart(event);
    else if (event.type === 'subagent-finish') this.subagentFinish(event);
  }

  private treeTool(list: HTMLElement, event: EventOf<'tool-call'>): void {
    const result = el('span', { className: 'muted', text: '…' });
    const li = el(
      'li',
      { className: 'search' },
      el('span', { className: 'kind', text: event.toolName === 'search_knowledge' ? 'search' : event.toolName }),
      ' ',
      el('q', { text: toolInputText(event.input) }),
      ' ',
      result,
    );
    list.append(li);
    this.toolRows.set(`tree:${agentOf(event) ?? ''}#${event.toolCallId}`, { li, result });
  }

  private treeToolResult(event: EventOf<'tool-result'>): void {
    const row = this.toolRows.get(`tree:${agentOf(event) ?? ''}#${event.toolCallId}`);
    if (!row) return;
    row.li.classList.toggle('failed', !event.ok);
    row.result.className = 'result';
    row.result.textContent = `${event.summary} · ${formatMs(event.ms)}`;
  }

  private critique(event: EventOf<'critique'>): void {
    byId('critique').hidden = false;
    const counts: Record<string, number> = {};
    for (const check of event.checks) counts[check.verdict] = (counts[check.verdict] ?? 0) + 1;
    const parts = Object.entries(counts).map(([verdict, n]) => `${n} ${verdict}`);
    const judge = event.model ? ` by ${event.model}` : '';
    byId('critique-summary').textContent =
      `${event.final ? 'The answer' : 'A draft'}: ${event.checks.length} claims checked${judge}: ${parts.join(', ') || 'none'}; ${event.openQuestions.length} open questions.`;
    // Findings sit beside the answer, each with who raised it; the answer itself is the model's, unchanged.
    const reported =
      event.findings ??
      event.checks
        .filter((check) => check.verdict !== 'supported')
        .map((check) => ({ claim: check.claim, finding: check.reason, by: 'critique' as const, verdict: check.verdict }));
    const findings = reported.map((f) =>
      el(
        'li',
        { 'data-by': f.by },
        el('span', { className: `badge status-failed`, text: f.verdict ?? 'finding' }),
        ' ',
        el('span', { text: truncate(f.claim, 160) }),
        el('span', { className: 'muted', text: ` (${f.finding}; by ${f.by})` }),
      ),
    );
    const warned = new Set((event.warnings ?? []).map((w) => w.subQuestion));
    for (const warning of event.warnings ?? [])
      findings.push(
        el(
          'li',
          { 'data-by': warning.by },
          el('span', { className: 'badge', text: 'open' }),
          ' ',
          el('span', { text: warning.message }),
          el('span', { className: 'muted', text: ` (by ${warning.by})` }),
        ),
      );
    for (const question of event.openQuestions)
      if (!warned.has(question.split(':')[0]))
        findings.push(
          el('li', { 'data-by': 'critique' }, el('span', { className: 'badge', text: 'open' }), ' ', el('span', { text: question })),
        );
    byId('critique-findings').replaceChildren(...findings);
  }
}
