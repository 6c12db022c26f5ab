import { randomUUID } from 'node:crypto';
import type { ModelMessage } from 'ai';
import type { Dossier } from '../dossier.ts';
import { DossierError, oneLine } from '../errors/index.ts';
import { callModel } from '../models/call.ts';
import type { ResolvedModel } from '../models/resolve.ts';
import type { Scope } from '../store/types.ts';
import { checkCitations } from './citations.ts';
import type { AgentEvent, Citation, EventListener, FinishReason, ToolCallRecord, Usage } from './events.ts';
import { EvidenceLedger, type LedgerEntry, type LedgerOptions } from './ledger.ts';
import { FINAL_ANSWER_NOW, ragSystemPrompt } from './prompts.ts';
import { parseTextAction, textProtocolInstructions } from './text-protocol.ts';
import { ToolRegistry, ragTools } from './tools/registry.ts';
import type { AgentTool, ToolContext, ToolResult } from './tools/tool.ts';

/** `supportsTools: false` gives the model the text tool protocol (JSON actions in plain text). */
export type AgentModel = ResolvedModel;

export interface AgentOptions {
  dossier: Dossier;
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
  toolTimeoutMs?: number;
  modelTimeoutMs?: number;
  maxRetries?: number;
  /** Tokens of tool output the model sees per call. */
  resultTokens?: number;
  ledger?: LedgerOptions;
  signal?: AbortSignal;
  onEvent?: EventListener;
  now?: Date;
}

export interface AgentResult {
  runId: string;
  answer: string;
  citations: Citation[];
  unresolvedCitations: string[];
  finishReason: FinishReason;
  /** True when a limit or failure cut the run short and the answer is the best the evidence supports. */
  partial: boolean;
  steps: number;
  toolCalls: number;
  usage: Usage;
  /** Final evidence ranking: cited evidence first, then the rest strongest first. */
  evidence: LedgerEntry[];
  ms: number;
}

const NO_EVIDENCE_ANSWER = 'Not found in the documents: no passage relevant to the question was found.';

export async function runAgent(options: AgentOptions): Promise<AgentResult> {
  const started = performance.now();
  const runId = randomUUID();
  const maxSteps = options.maxSteps ?? 10;
  const tokenBudget = options.tokenBudget ?? 200_000;
  const stagnationSteps = options.stagnationSteps ?? 2;
  const tools = options.tools ?? new ToolRegistry(ragTools());
  const scope = options.scope ?? { collections: '*' };
  const ledger = new EvidenceLedger(options.ledger);
  const usage: Usage = { inputTokens: 0, outputTokens: 0 };
  const emit = (event: AgentEvent) => options.onEvent?.(event);
  const question = options.question.trim();
  if (!question) throw new DossierError('bad-input', 'the question is empty');
  if (!Number.isInteger(maxSteps) || maxSteps < 1 || maxSteps > 100) throw new DossierError('bad-input', `max steps must be an integer from 1 to 100, got ${maxSteps}`);

  const now = options.now ?? new Date();
  let system = ragSystemPrompt({ now, toolNames: tools.names() });
  if (!options.model.supportsTools) system += `\n\n${textProtocolInstructions(tools.list())}`;
  const messages: ModelMessage[] = [{ role: 'user', content: question }];
  let toolCallCount = 0;
  let stagnant = 0;
  let step = 0;
  let finishReason: FinishReason | undefined;
  let answer: string | undefined;
  let partial = false;

  emit({ type: 'run-start', runId, question, mode: 'rag', model: options.model.id, textTools: !options.model.supportsTools, time: now.toISOString() });

  // One-shot generation for strategies that need the model's words (RAG-Fusion variants, HyDE passages).
  const generate = async (prompt: string) =>
    (await callModel({ model: options.model.model, system: 'You help a search engine. Reply with only what is asked.', messages: [{ role: 'user', content: prompt }], abortSignal: options.signal, timeoutMs: options.modelTimeoutMs, maxRetries: options.maxRetries })).text;

  const turn = async (withTools: boolean) => {
    const modelStarted = performance.now();
    const result = await callModel({
      model: options.model.model,
      system,
      messages,
      // At a limit the tools stay declared (providers reject tool history without them) but may not be called.
      tools: options.model.supportsTools ? Object.fromEntries(tools.list().map((tool) => [tool.name, { description: tool.description, inputSchema: tool.inputSchema }])) : undefined,
      toolChoice: withTools ? 'auto' : 'none',
      abortSignal: options.signal,
      timeoutMs: options.modelTimeoutMs,
      maxRetries: options.maxRetries,
      onTextDelta: options.model.supportsTools ? (delta: string) => emit({ type: 'text-delta', step, delta }) : undefined,
      onReasoningDelta: (delta: string) => emit({ type: 'thinking-delta', step, delta }),
    });
    usage.inputTokens += result.usage.inputTokens ?? 0;
    usage.outputTokens += result.usage.outputTokens ?? 0;
    let toolCalls: ToolCallRecord[] = result.toolCalls;
    let text = result.text;
    if (!options.model.supportsTools) {
      const action = parseTextAction(result.text, `step${step}`);
      if (action.type === 'tool' && withTools) {
        toolCalls = action.calls;
        text = '';
      } else if (action.type === 'final') text = action.answer;
      else if (action.type === 'invalid') return { text: '', toolCalls: [], invalid: action.error, raw: result.text };
      if (text) emit({ type: 'text-delta', step, delta: text });
    }
    emit({ type: 'model-output', step, text: result.text, toolCalls: result.toolCalls, usage: { ...result.usage }, ms: Math.round(performance.now() - modelStarted) });
    return { text, toolCalls, invalid: undefined as string | undefined, raw: result.text };
  };

  try {
    while (finishReason === undefined) {
      if (options.signal?.aborted) {
        finishReason = 'aborted';
        break;
      }
      if (step >= maxSteps) {
        finishReason = 'max-steps';
        break;
      }
      if (usage.inputTokens + usage.outputTokens >= tokenBudget) {
        finishReason = 'budget';
        break;
      }
      step++;
      emit({ type: 'step-start', step });
      const result = await turn(true);
      if (result.invalid) {
        messages.push({ role: 'assistant', content: result.raw || '(empty)' }, { role: 'user', content: `Error: ${result.invalid}` });
        continue;
      }
      if (result.toolCalls.length === 0) {
        answer = result.text;
        finishReason = ledger.size === 0 ? 'no-evidence' : 'stop';
        break;
      }
      // Record the model's calls, run them (bounded, each with a timeout), and show it the results.
      if (options.model.supportsTools) {
        messages.push({
          role: 'assistant',
          content: [
            ...(result.text ? [{ type: 'text' as const, text: result.text }] : []),
            ...result.toolCalls.map((call) => ({ type: 'tool-call' as const, toolCallId: call.toolCallId, toolName: call.toolName, input: call.inputError || typeof call.input !== 'object' || call.input === null ? {} : call.input })),
          ],
        });
      } else {
        messages.push({ role: 'assistant', content: result.raw });
      }
      toolCallCount += result.toolCalls.length;
      const outcomes = await runTools(result.toolCalls, tools, {
        dossier: options.dossier,
        scope,
        ledger,
        step,
        signal: options.signal,
        resultTokens: options.resultTokens ?? 1200,
        concurrency: options.toolConcurrency ?? 4,
        timeoutMs: options.toolTimeoutMs ?? 20_000,
        toolNames: tools.names(),
        generate: options.model.id === 'offline' ? undefined : generate,
        emit,
      });
      if (options.model.supportsTools) {
        messages.push({
          role: 'tool',
          content: outcomes.map((outcome) => ({
            type: 'tool-result' as const,
            toolCallId: outcome.call.toolCallId,
            toolName: outcome.call.toolName,
            output: outcome.ok ? { type: 'text' as const, value: outcome.text } : { type: 'error-text' as const, value: outcome.text },
          })),
        });
      } else {
        messages.push({ role: 'user', content: outcomes.map((o) => `Result of ${o.call.toolName} (${o.call.toolCallId}):\n${o.ok ? o.text : `Error: ${o.text}`}`).join('\n\n') });
      }
      const searched = outcomes.filter((o) => o.searches);
      if (searched.length > 0) {
        stagnant = searched.some((o) => o.newEvidence > 0) ? 0 : stagnant + 1;
        if (stagnant >= stagnationSteps) finishReason = 'stagnation';
      }
    }
  } catch (error) {
    if (options.signal?.aborted || (error as Error)?.name === 'AbortError') finishReason = 'aborted';
    else {
      finishReason = 'error';
      emit({ type: 'error', step, message: oneLine(error), code: DossierError.isInstance(error) ? error.code : 'failed' });
    }
  }

  // At a limit (or after a failure) the run still ends with the best answer the evidence supports.
  if (answer === undefined) {
    partial = true;
    if (ledger.size === 0) {
      answer = NO_EVIDENCE_ANSWER;
      if (finishReason === 'stop' || finishReason === 'stagnation') finishReason = 'no-evidence';
    } else if (finishReason !== 'aborted' && finishReason !== 'error') {
      try {
        messages.push({ role: 'user', content: FINAL_ANSWER_NOW });
        const last = await turn(false);
        answer = last.text || last.raw;
      } catch (error) {
        emit({ type: 'error', step, message: oneLine(error), code: DossierError.isInstance(error) ? error.code : 'failed' });
      }
    }
    answer ||= extractiveFallback(ledger);
  }
  if (!answer.trim()) answer = ledger.size === 0 ? NO_EVIDENCE_ANSWER : extractiveFallback(ledger);

  const checked = checkCitations(answer, ledger);
  // An answer that no evidence supports ("not found", or nothing cited at all) is a no-evidence finish.
  if (finishReason === 'stop' && checked.citations.length === 0) finishReason = 'no-evidence';
  for (const citation of checked.citations) emit({ type: 'citation', citation });
  for (const id of checked.unresolved) emit({ type: 'citation-unresolved', id });
  emit({ type: 'final-answer', answer: checked.answer, citations: checked.citations, unresolvedCitations: checked.unresolved, partial });
  const ms = Math.round(performance.now() - started);
  emit({ type: 'run-finish', finishReason: finishReason!, steps: step, toolCalls: toolCallCount, usage: { ...usage }, ms });
  const evidence = rankEvidence(ledger, checked.citations.map((c) => c.id), `${question}\n${checked.answer}`, options.dossier);
  return {
    runId,
    answer: checked.answer,
    citations: checked.citations,
    unresolvedCitations: checked.unresolved,
    finishReason: finishReason!,
    partial,
    steps: step,
    toolCalls: toolCallCount,
    usage,
    evidence,
    ms,
  };
}

/**
 * The run's final evidence ranking: cited evidence in citation order, then the rest by how much of
 * the question and the answer it supports (terms weighted by their rarity in the whole index),
 * then by the fused rank of the searches that found it.
 */
function rankEvidence(ledger: EvidenceLedger, citedIds: readonly string[], questionAndAnswer: string, dossier: Dossier): LedgerEntry[] {
  const cited = citedIds.flatMap((id) => ledger.get(id) ?? []);
  const rest = ledger.ranked().filter((entry) => !cited.includes(entry));
  if (rest.length < 2) return [...cited, ...rest];
  const tokenizer = dossier.tokenizer;
  const wanted = [...new Set(tokenizer.terms(questionAndAnswer.replace(/\[(?:unresolved: )?E\d+[^\]]*\]/g, ' ')))];
  const { chunks, frequencies } = dossier.store.documentFrequencies(wanted);
  const weight = new Map(wanted.map((term) => [term, Math.log(1 + (chunks + 1) / ((frequencies.get(term) ?? 0) + 0.5))]));
  const citedText = cited.map((entry) => entry.chunk.text.toLowerCase()).join('\n');
  const support = new Map(
    rest.map((entry) => {
      const terms = new Set(tokenizer.terms(`${entry.chunk.title} ${entry.chunk.text}`));
      let sum = 0;
      for (const [term, w] of weight) if (terms.has(term)) sum += w;
      // Evidence that the cited evidence names (by its title) is what a reader would open next.
      const name = entry.chunk.title.replace(/\s*\([^)]*\)\s*$/, '').toLowerCase();
      if (name.length > 3 && citedText.includes(name)) sum *= 2;
      return [entry, sum];
    }),
  );
  return [...cited, ...rest.sort((a, b) => support.get(b)! - support.get(a)! || b.fusedScore - a.fusedScore)];
}

/** When no model answer can be had: the strongest evidence, quoted and cited, marked as such. */
function extractiveFallback(ledger: EvidenceLedger): string {
  const top = ledger.ranked().slice(0, 3);
  const quotes = top.map((entry) => `- ${entry.chunk.text.replace(/\s+/g, ' ').slice(0, 300)} [${entry.id}]`);
  return `The run stopped before a full answer. The strongest evidence found:\n${quotes.join('\n')}`;
}

interface ToolOutcome {
  call: ToolCallRecord;
  ok: boolean;
  text: string;
  searches: boolean;
  newEvidence: number;
}

async function runTools(
  calls: ToolCallRecord[],
  tools: ToolRegistry,
  context: ToolContext & { concurrency: number; timeoutMs: number; toolNames: string[]; emit: (event: AgentEvent) => void },
): Promise<ToolOutcome[]> {
  const outcomes: ToolOutcome[] = new Array(calls.length);
  let next = 0;
  const worker = async () => {
    while (next < calls.length) {
      const index = next++;
      outcomes[index] = await runOne(calls[index], tools.get(calls[index].toolName), context);
    }
  };
  await Promise.all(Array.from({ length: Math.min(context.concurrency, calls.length) }, worker));
  return outcomes;
}

async function runOne(
  call: ToolCallRecord,
  tool: AgentTool | undefined,
  context: Parameters<typeof runTools>[2],
): Promise<ToolOutcome> {
  const started = performance.now();
  context.emit({ type: 'tool-call', step: context.step, toolCallId: call.toolCallId, toolName: call.toolName, input: call.input });
  const finish = (ok: boolean, text: string, summary: string, result?: ToolResult): ToolOutcome => {
    context.emit({
      type: 'tool-result',
      step: context.step,
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      ok,
      summary,
      evidenceIds: result?.evidence.map((e) => e.id) ?? [],
      ms: Math.round(performance.now() - started),
    });
    return { call, ok, text, searches: Boolean(tool?.searches), newEvidence: result?.newEvidence.length ?? 0 };
  };
  if (!tool) return finish(false, `unknown tool "${call.toolName}"; available tools: ${context.toolNames.join(', ')}`, 'unknown tool');
  if (call.inputError) return finish(false, `invalid arguments for ${tool.name}: ${call.inputError}`, 'invalid arguments');
  const parsed = tool.inputSchema.safeParse(call.input ?? {});
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'input'}: ${issue.message}`).join('; ');
    return finish(false, `invalid arguments for ${tool.name}: ${issues}`, 'invalid arguments');
  }
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new ToolTimeout(context.timeoutMs)), context.timeoutMs);
    });
    const result = await Promise.race([tool.execute(parsed.data, { ...context, resultTokens: context.resultTokens }), timeout]);
    for (const entry of result.newEvidence) context.emit({ type: 'evidence-added', step: context.step, evidence: context.ledger.summary(entry) });
    return finish(true, result.forModel, result.summary, result);
  } catch (error) {
    if (error instanceof ToolTimeout) return finish(false, `${tool.name} timed out after ${context.timeoutMs} ms; no result. Try a narrower request.`, 'timed out');
    return finish(false, `${tool.name} failed: ${oneLine(error)}`, `failed: ${oneLine(error)}`);
  } finally {
    clearTimeout(timer);
  }
}

class ToolTimeout extends Error {
  constructor(ms: number) {
    super(`timed out after ${ms} ms`);
  }
}

