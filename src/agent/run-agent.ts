import { randomUUID } from 'node:crypto';
import type { ModelMessage } from 'ai';
import { DossierError, oneLine } from '../errors/index.ts';
import { callModel } from '../providers/call-model.ts';
import type { ResolvedModel } from '../providers/index.ts';
import type { Knowledge } from '../retrieve/knowledge.ts';
import type { Scope } from '../store/types.ts';
import { checkCitations, resolveClosestPassages } from '../evidence/citations.ts';
import type { AgentEvent, Citation, EventListener, FinishReason, Usage } from '../protocol/events.ts';
import { NO_EVIDENCE_ANSWER, abortedAnswer, extractiveFallback, failedAnswer } from './fallback-answers.ts';
import { decideFinishReason, type RunEnd, type RunError } from './finish-reason.ts';
import { EvidenceLedger, type LedgerEntry, type LedgerOptions } from '../evidence/ledger.ts';
import { compactTranscript } from './context-budget.ts';
import { modelTurn } from './model-turn.ts';
import { BUDGET_NEARLY_SPENT, FINAL_ANSWER_NOW, ragSystemPrompt } from './prompts.ts';
import {
  abortedBy,
  budgetSpent,
  noNewEvidenceFor,
  stepCountIs,
  stopReason,
  timeBudgetIs,
  tokenBudgetIs,
  toolCallBudgetIs,
  type StepRecord,
} from './stop-conditions.ts';
import { toolProtocolFor } from './tool-protocol/index.ts';
import { runToolCalls } from './tool-runner.ts';
import { ToolRegistry, ragTools } from './tools/registry.ts';

/** `supportsTools: false` gives the model the text tool protocol (JSON actions in plain text). */
export type AgentModel = ResolvedModel;

export interface AgentOptions {
  /** What the run reads (a `Dossier` is one). */
  knowledge: Knowledge;
  question: string;
  model: AgentModel;
  scope?: Scope;
  tools?: ToolRegistry;
  maxSteps?: number;
  /** Total model tokens (input + output) the run may spend. */
  tokenBudget?: number;
  /** Consecutive steps whose searches add no new evidence before the run stops. */
  stagnationSteps?: number;
  /** Parallel tool calls in one step run at most this many at a time. */
  toolConcurrency?: number;
  /** Per tool call; on expiry the tool's `context.signal` fires and the model gets an error result. */
  toolTimeoutMs?: number;
  /** Per model call, retries included. */
  modelTimeoutMs?: number;
  maxRetries?: number;
  /** Tokens of tool output the model sees per call. */
  resultTokens?: number;
  /**
   * Tokens of tool results the transcript may hold before each model turn (the context budget):
   * past it the oldest results are compacted, each passage to one line with its id and address
   * (context-budget.ts); the newest round stays whole. The ledger keeps the full text.
   */
  contextTokens?: number;
  /** Ledger options, or a ledger to share (a research run hands its own to its tools). */
  ledger?: LedgerOptions | EvidenceLedger;
  signal?: AbortSignal;
  onEvent?: EventListener;
  now?: Date;
  /** The run's kind in its `run-start` event (default `rag`; research mode's planner runs this loop as `research`). */
  runLabel?: string;
  /** The system prompt's rules (default: the RAG prompt); the tool protocol's instructions follow it. */
  systemPrompt?: (context: { now: Date; toolNames: readonly string[] }) => string;
  /** Tool calls the run may make in all, and seconds it may take; reaching either ends it with `budget`. */
  toolCallBudget?: number;
  timeBudgetSeconds?: number;
  /** Once this share (0–1) of any budget is spent, the model is told to answer now (research mode: 0.85). */
  answerNowAt?: number;
  /** Where the run's events come from in a research run (`["research", "rag:2"]`); set on every event. */
  path?: string[];
  /**
   * Reviews each answer before it is final: returns what the model must address (it then gets
   * another turn), or undefined to accept. Research mode's critique gate.
   */
  reviewAnswer?: (answer: string, context: { ledger: EvidenceLedger; step: number }) => Promise<string | undefined>;
  /**
   * Sees the answer about to be delivered, before its citations are checked (research mode: the
   * critique of the final answer, reported beside it). It cannot change the answer: Dossier never
   * rewrites a model's answer.
   */
  beforeFinalAnswer?: (answer: string, context: { ledger: EvidenceLedger; step: number }) => Promise<void>;
  /** Set when the final answer must wait for a person's approval: the reason, shown in `approval-required`. */
  holdForApproval?: string;
  /** Run id to use (a research run names its nested runs); default a new UUID. */
  runId?: string;
}

export interface AgentResult {
  runId: string;
  /** The model that answered (`AgentModel.id`). */
  model: string;
  answer: string;
  citations: Citation[];
  unresolvedCitations: string[];
  finishReason: FinishReason;
  /** Set when the run failed or was aborted (finish reason `error` or `aborted`). */
  error?: RunError;
  /** True when a limit or failure cut the run short and the answer is the best the evidence supports. */
  partial: boolean;
  steps: number;
  toolCalls: number;
  usage: Usage;
  /** The evidence, cited first (in citation order), then the rest strongest first (`EvidenceLedger.ranked`). */
  evidence: LedgerEntry[];
  ms: number;
  /** With finish reason `no-evidence`: the passages the model named closest to answering, resolved like citations but not cited. */
  closestPassages?: Citation[];
  /** The answer withheld for approval (finish reason `needs-approval`), with its citations. */
  held?: { answer: string; citations: Citation[]; unresolvedCitations: string[]; reason: string };
}

export const AGENT_DEFAULTS = {
  maxSteps: 10,
  tokenBudget: 200_000,
  stagnationSteps: 2,
  toolConcurrency: 4,
  toolTimeoutMs: 20_000,
  resultTokens: 1200,
  contextTokens: 8000,
};

const ABORTED: RunError = { code: 'aborted', message: 'the run was aborted' };

/**
 * The agent loop: before each step the stop conditions may end the run; a step is one model turn
 * (read through the tool protocol) and, when the model asks for tools, one round of tool calls.
 * At a limit the model answers from the evidence it has; a failure ends the run saying so.
 */
export async function runAgent(options: AgentOptions): Promise<AgentResult> {
  const started = performance.now();
  const runId = options.runId ?? randomUUID();
  const maxSteps = options.maxSteps ?? AGENT_DEFAULTS.maxSteps;
  const question = options.question.trim();
  if (!question) throw new DossierError('bad-input', 'the question is empty');
  if (options.contextTokens !== undefined && !(options.contextTokens > 0))
    throw new DossierError('bad-input', `the context budget must be a positive number of tokens, got ${options.contextTokens}`);
  if (!Number.isInteger(maxSteps) || maxSteps < 1 || maxSteps > 100)
    throw new DossierError('bad-input', `max steps must be an integer from 1 to 100, got ${maxSteps}`);
  const scope = options.scope ?? { collections: '*' };
  const canGenerate = options.model.id !== 'offline';
  // Descriptions from the index (the metadata keys a filter can name), strategies the model can run.
  // (A store that cannot answer now fails the run's first search, with its own error, not the run's start.)
  const offered = options.tools ?? new ToolRegistry(ragTools());
  const tools = await offered.forRun({ knowledge: options.knowledge, scope, canGenerate }).catch(() => offered);
  const ledger = options.ledger instanceof EvidenceLedger ? options.ledger : new EvidenceLedger(options.ledger);
  const protocol = toolProtocolFor(options.model);
  const path = options.path;
  // An answer held for approval is not streamed: nothing of it is shown until a person decides —
  // neither the final text nor the nested agents' answers it is made of.
  const emit = (event: AgentEvent) => {
    if (options.holdForApproval !== undefined && (event.type === 'text-delta' || (event.type === 'final-answer' && event.path))) return;
    options.onEvent?.(path && !event.path ? { ...event, path } : event);
  };
  const tokenBudget = options.tokenBudget ?? AGENT_DEFAULTS.tokenBudget;
  const timeBudgetMs = options.timeBudgetSeconds !== undefined ? options.timeBudgetSeconds * 1000 : undefined;
  const stopWhen = [
    abortedBy(options.signal),
    noNewEvidenceFor(options.stagnationSteps ?? AGENT_DEFAULTS.stagnationSteps),
    stepCountIs(maxSteps),
    tokenBudgetIs(tokenBudget),
    ...(options.toolCallBudget !== undefined ? [toolCallBudgetIs(options.toolCallBudget)] : []),
    ...(timeBudgetMs !== undefined ? [timeBudgetIs(timeBudgetMs)] : []),
  ];

  const now = options.now ?? new Date();
  const system = (options.systemPrompt ?? ragSystemPrompt)({ now, toolNames: tools.names() }) + protocol.instructions(tools.list());
  const messages: ModelMessage[] = [{ role: 'user', content: question }];
  // Where the tool results are in `messages`, oldest first, and which of them are compacted.
  const results: number[] = [];
  const compacted = new Set<number>();
  const contextTokens = options.contextTokens ?? AGENT_DEFAULTS.contextTokens;
  const steps: StepRecord[] = [];
  const usage: Usage = { inputTokens: 0, outputTokens: 0 };
  let toolCallCount = 0;
  let step = 0;
  let end: RunEnd | undefined;
  let answer: string | undefined;
  // The passages the model named closest to answering on its last turn (protocol/model-metadata.ts).
  let closest: string[] | undefined;

  const turn = async (allowTools: boolean) => {
    const compaction = compactTranscript(messages, results, compacted, contextTokens, ledger);
    const {
      action,
      usage: spent,
      notFound,
      closest: named,
    } = await modelTurn({
      model: options.model.model,
      protocol,
      system,
      messages,
      tools: tools.list(),
      step,
      allowTools,
      signal: options.signal,
      timeoutMs: options.modelTimeoutMs,
      maxRetries: options.maxRetries,
      ...(compaction.compacted
        ? { compacted: { results: compaction.compacted, tokensBefore: compaction.before, tokensAfter: compaction.after } }
        : {}),
      emit,
    });
    usage.inputTokens += spent.inputTokens;
    usage.outputTokens += spent.outputTokens;
    closest = named;
    return { ...action, notFound };
  };
  const fail = (error: unknown): RunEnd => {
    if (options.signal?.aborted || (error as Error)?.name === 'AbortError') return { type: 'aborted' };
    const failure = { code: DossierError.isInstance(error) ? error.code : 'failed', message: oneLine(error) };
    emit({ type: 'error', step, message: failure.message, code: failure.code });
    return { type: 'failed', error: failure };
  };
  // One-shot generation for strategies that need the model's words (RAG-Fusion variants, HyDE passages).
  const generate = async (prompt: string, signal: AbortSignal) =>
    (
      await callModel({
        model: options.model.model,
        system: 'You help a search engine. Reply with only what is asked.',
        messages: [{ role: 'user', content: prompt }],
        abortSignal: signal,
        timeoutMs: options.modelTimeoutMs,
        maxRetries: options.maxRetries,
      })
    ).text;

  const index = await options.knowledge.store.identity();
  emit({
    type: 'run-start',
    runId,
    question,
    mode: options.runLabel ?? 'rag',
    model: options.model.id,
    textTools: protocol.name === 'text',
    time: now.toISOString(),
    index,
    maxSteps,
  });
  let warned = false;
  let reviews = 0;
  try {
    while (end === undefined) {
      const progress = { steps, usage, elapsedMs: performance.now() - started };
      const limit = stopReason(stopWhen, progress);
      if (limit !== undefined) {
        end = limit === 'aborted' ? { type: 'aborted' } : { type: 'limit', reason: limit };
        break;
      }
      if (
        options.answerNowAt !== undefined &&
        !warned &&
        budgetSpent(progress, { steps: maxSteps, tokens: tokenBudget, toolCalls: options.toolCallBudget, ms: timeBudgetMs }) >=
          options.answerNowAt
      ) {
        warned = true;
        messages.push({ role: 'user', content: BUDGET_NEARLY_SPENT });
      }
      step++;
      emit({ type: 'step-start', step });
      const action = await turn(true);
      if (action.type === 'invalid') {
        protocol.appendInvalid(messages, action);
        steps.push({ step, toolCalls: 0, searches: { calls: 0, newEvidence: 0 } });
        continue;
      }
      if (action.type === 'answer') {
        const review =
          options.reviewAnswer && reviews < MAX_REVIEWS ? await options.reviewAnswer(action.text, { ledger, step }) : undefined;
        if (review !== undefined) {
          // The draft goes back with what to fix; the model answers again.
          reviews++;
          messages.push({ role: 'assistant', content: action.text }, { role: 'user', content: review });
          steps.push({ step, toolCalls: 0, searches: { calls: 0, newEvidence: 0 } });
          continue;
        }
        answer = action.text;
        end = { type: 'answered', notFound: action.notFound };
        break;
      }
      protocol.appendToolCalls(messages, action);
      toolCallCount += action.calls.length;
      const outcomes = await runToolCalls(
        action.calls,
        {
          knowledge: options.knowledge,
          scope,
          ledger,
          step,
          emit,
          resultTokens: options.resultTokens ?? AGENT_DEFAULTS.resultTokens,
          generate: canGenerate ? generate : undefined,
        },
        {
          tools,
          concurrency: options.toolConcurrency ?? AGENT_DEFAULTS.toolConcurrency,
          timeoutMs: options.toolTimeoutMs ?? AGENT_DEFAULTS.toolTimeoutMs,
          signal: options.signal,
          emit,
        },
      );
      protocol.appendToolResults(messages, outcomes);
      results.push(messages.length - 1);
      const searches = outcomes.filter((o) => o.searches);
      steps.push({
        step,
        toolCalls: outcomes.length,
        searches: { calls: searches.length, newEvidence: searches.reduce((sum, o) => sum + o.newEvidence, 0) },
      });
    }
  } catch (error) {
    end = fail(error);
  }

  // At a limit the model answers from the evidence it has, without tools.
  const partial = answer === undefined;
  if (end.type === 'limit' && ledger.size > 0) {
    try {
      messages.push({ role: 'user', content: FINAL_ANSWER_NOW });
      const last = await turn(false);
      answer = (last.type === 'answer' ? last.text : '') || last.raw;
    } catch (error) {
      end = fail(error);
    }
  }
  if (end.type === 'failed') answer = failedAnswer(end.error.message, ledger);
  else if (end.type === 'aborted') answer = abortedAnswer(ledger);
  else if (!answer?.trim()) answer = ledger.size === 0 ? NO_EVIDENCE_ANSWER : extractiveFallback(ledger);

  if (options.beforeFinalAnswer && (end.type === 'answered' || end.type === 'limit')) {
    try {
      await options.beforeFinalAnswer(answer, { ledger, step });
    } catch (error) {
      end = fail(error);
      answer = end.type === 'failed' ? failedAnswer(end.error.message, ledger) : abortedAnswer(ledger);
    }
  }
  const checked = checkCitations(answer, ledger);
  const hold =
    options.holdForApproval !== undefined && (end.type === 'answered' || end.type === 'limit') ? options.holdForApproval : undefined;
  const finishReason =
    hold !== undefined ? 'needs-approval' : decideFinishReason(end, { ledgerSize: ledger.size, citations: checked.citations.length });
  if (hold !== undefined) {
    // The answer waits for a person; nothing of it is shown until then.
    emit({ type: 'approval-required', runId, reason: hold });
  } else {
    for (const citation of checked.citations) emit({ type: 'citation', citation });
    for (const id of checked.unresolved) emit({ type: 'citation-unresolved', id });
    emit({ type: 'final-answer', answer: checked.answer, citations: checked.citations, unresolvedCitations: checked.unresolved, partial });
  }
  const ms = Math.round(performance.now() - started);
  emit({ type: 'run-finish', finishReason, steps: step, toolCalls: toolCallCount, usage: { ...usage }, ms });
  const cited = checked.citations.flatMap((c) => ledger.get(c.id) ?? []);
  const error = end.type === 'failed' ? end.error : end.type === 'aborted' ? ABORTED : undefined;
  const held =
    hold !== undefined
      ? { answer: checked.answer, citations: checked.citations, unresolvedCitations: checked.unresolved, reason: hold }
      : undefined;
  return {
    runId,
    model: options.model.id,
    answer: held ? awaitingApproval(runId, held.reason) : checked.answer,
    citations: held ? [] : checked.citations,
    unresolvedCitations: held ? [] : checked.unresolved,
    finishReason,
    ...(error ? { error } : {}),
    partial,
    steps: step,
    toolCalls: toolCallCount,
    usage,
    evidence: [...cited, ...ledger.ranked().filter((entry) => !cited.includes(entry))],
    ms,
    ...(held ? { held } : {}),
    ...(finishReason === 'no-evidence' && closest ? { closestPassages: resolveClosestPassages(closest, ledger) } : {}),
  };
}

/** Answers a draft may be sent back for review at most (research mode's critique rounds). */
const MAX_REVIEWS = 2;

export function awaitingApproval(runId: string, reason: string): string {
  return `Waiting for approval (${reason}): the answer is held until a person decides. Run \`dossier approve ${runId}\` or \`dossier approve ${runId} --deny\`.`;
}
