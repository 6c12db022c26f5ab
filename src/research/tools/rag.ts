import { z } from 'zod';
import type { AgentEvent } from '../../protocol/events.ts';
import { rewriteCitationMarkers } from '../../protocol/citations.ts';
import { formatEvidence } from '../../evidence/evidence-format.ts';
import { EvidenceLedger, type LedgerEntry, type ReadBudget } from '../../evidence/ledger.ts';
import { runAgent, type AgentModel } from '../../agent/run-agent.ts';
import { ragSystemPrompt } from '../../agent/prompts.ts';
import { nestedContext } from '../prompts.ts';
import { ToolRegistry } from '../../agent/tools/registry.ts';
import type { AgentTool, ToolContext, ToolResult } from '../../agent/tools/tool.ts';
import type { ResearchState, SubagentRecord } from '../state.ts';

const input = z.object({
  question: z.string().min(3).max(1000).describe('A self-contained sub-question for a RAG agent to answer from the documents'),
  subQuestion: z.string().max(10).optional().describe('The plan id it answers (S1, S2, …)'),
});

export interface NestedAgentOptions {
  model: AgentModel;
  /** The tools each nested agent gets (the RAG tools, as the run's permissions allow). */
  tools: () => AgentTool[];
  maxSteps: number;
  tokenBudget: number;
  timeBudgetSeconds: number;
  /** Shared with the research run: distinct chunks read, counted once across every agent. */
  reads: ReadBudget;
  modelTimeoutMs?: number;
  /** The run's context budget (AgentOptions.contextTokens), for each nested agent's own transcript. */
  contextTokens?: number;
}

/** Rewrites a nested answer's evidence ids to the research run's ids (ids it cannot map are shown unresolved). */
function rewriteCitations(answer: string, ids: Map<string, LedgerEntry>): string {
  return rewriteCitationMarkers(answer, (marker) => {
    const rewritten = marker.ids.map((id) => (marker.unresolvedIds.includes(id) ? undefined : ids.get(id)?.id) ?? `unresolved: ${id}`);
    return `[${rewritten.join(', ')}]`;
  });
}

/**
 * The `rag` tool: one nested RAG agent per call, with its own steps, token and time budget and its
 * own ledger. Several calls in one planner turn run in parallel (bounded by the run's tool
 * concurrency). The evidence the nested answer cites is adopted into the research ledger, so the
 * report's citations resolve exactly as in RAG mode; its events reach the research stream tagged
 * with their path. A nested agent that fails is a result that says so, never a crash.
 */
/** Per research ledger: the promise the next nested agent waits for before it adopts its evidence. */
const adoptionTurns = new WeakMap<EvidenceLedger, Promise<void>>();

export function ragTool(state: ResearchState, nested: NestedAgentOptions): AgentTool<z.infer<typeof input>> {
  return {
    name: 'rag',
    description:
      'Answer one sub-question with a nested RAG agent that searches the documents on its own and cites evidence. Call it once per sub-question; ' +
      'independent sub-questions in the same turn run in parallel. Returns its cited answer and the evidence (ids to cite in the report).',
    inputSchema: input,
    searches: true,
    async execute({ question, subQuestion }, context) {
      context.signal.throwIfAborted();
      // Nested agents run in parallel but join the run's ledger in the order they were called, so
      // the run's evidence ids never depend on which finished first.
      const earlier = adoptionTurns.get(context.ledger) ?? Promise.resolve();
      let done!: () => void;
      const mine = new Promise<void>((resolve) => (done = resolve));
      adoptionTurns.set(
        context.ledger,
        earlier.then(() => mine),
      );
      try {
        return await runNested(question, subQuestion, context, earlier);
      } finally {
        done();
      }
    },
  };

  async function runNested(
    question: string,
    subQuestion: string | undefined,
    context: ToolContext,
    earlier: Promise<void>,
  ): Promise<ToolResult> {
    const id = state.newSubagentId();
    const item = state.planItemFor(question, subQuestion);
    const path = ['research', id];
    const forward = (event: AgentEvent) => context.emit?.(event.path ? event : { ...event, path });
    context.emit?.({ type: 'subagent-start', step: context.step, id, question });
    const ledger = new EvidenceLedger({ reads: nested.reads });
    const result = await runAgent({
      knowledge: context.knowledge,
      question,
      // The sub-question is what it answers; the research question and brief say what it is for.
      systemPrompt: (prompt) =>
        `${ragSystemPrompt(prompt)}\n\n${nestedContext({ question: state.question, brief: state.brief, subQuestion: item })}`,
      model: nested.model,
      scope: context.scope,
      tools: new ToolRegistry(nested.tools()),
      maxSteps: nested.maxSteps,
      tokenBudget: nested.tokenBudget,
      timeBudgetSeconds: nested.timeBudgetSeconds,
      modelTimeoutMs: nested.modelTimeoutMs,
      contextTokens: nested.contextTokens,
      ledger,
      signal: context.signal,
      path,
      onEvent: forward,
    });
    await earlier;
    context.signal.throwIfAborted();
    const cited = result.citations.flatMap((c) => ledger.get(c.id) ?? []);
    const before = new Set(context.ledger.entries().map((e) => e.id));
    // Everything it read joins the run's evidence, in the order it was found (ties rank as they did
    // there); what it cited is pinned.
    const adopted = new Map<string, LedgerEntry>();
    for (const entry of ledger.entries()) {
      for (const [id, mine] of context.ledger.adopt([entry], { step: context.step, tool: 'rag', used: cited.includes(entry) }))
        adopted.set(id, mine);
    }
    const entries = [...new Set(cited.flatMap((entry) => adopted.get(entry.id) ?? []))];
    const answer = rewriteCitations(result.answer, adopted);
    const failed = result.finishReason === 'error' || result.finishReason === 'aborted';
    // Found is what the run says (its finish reason and what it cites), never how the answer is worded.
    const found = !failed && result.finishReason !== 'no-evidence' && entries.length > 0;
    if (item) item.status = failed ? 'failed' : found ? 'answered' : 'open';
    const record: SubagentRecord = {
      id,
      ...(item ? { subQuestion: item.id } : {}),
      question,
      finishReason: result.finishReason,
      answer,
      citations: entries.map((e) => e.id),
      ...(result.error ? { error: result.error } : {}),
      steps: result.steps,
      toolCalls: result.toolCalls,
      usage: result.usage,
      ms: result.ms,
    };
    state.subagents.push(record);
    context.emit?.({
      type: 'subagent-finish',
      step: context.step,
      id,
      finishReason: result.finishReason,
      citations: entries.length,
      ms: result.ms,
      ...(result.error ? { error: result.error.message } : {}),
    });
    if (item) context.emit?.({ type: 'plan', step: context.step, brief: state.brief, items: state.plan.map((p) => ({ ...p })) });
    const status = failed ? `failed: ${result.error?.message ?? result.finishReason}` : found ? 'answered' : 'not found in the documents';
    const forModel = [
      `SUB-QUESTION ${item?.id ?? '-'} (${id}): ${question}`,
      `RESULT: ${status} (finish reason ${result.finishReason}, ${result.steps} steps)`,
      'ANSWER:',
      answer,
      'END ANSWER',
      entries.length ? formatEvidence(entries, context.resultTokens) : 'No evidence cited.',
    ].join('\n');
    return {
      raw: record,
      forModel,
      evidence: entries,
      newEvidence: entries.filter((e) => !before.has(e.id)),
      summary: `${id} ${status} (${entries.length} cited)`,
    };
  }
}
