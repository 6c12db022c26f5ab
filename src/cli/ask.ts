import { configFromEnv } from '../config/index.ts';
import type { Dossier } from '../dossier.ts';
import type { AgentEvent } from '../agent/events.ts';
import { runAgent, type AgentResult } from '../agent/loop.ts';
import { ToolRegistry, loadUserTools, ragTools } from '../agent/tools/registry.ts';
import { ReplayModel, readTrace, TraceWriter } from '../agent/trace.ts';
import { resolveModel } from '../models/resolve.ts';
import { colors, printJson } from './output.ts';

export interface AskCommandOptions {
  question: string;
  model?: string;
  maxSteps: number;
  trace?: string;
  json: boolean;
  collections?: string[];
  toolsDir?: string;
}

/** The `ask --json` object (DESIGN §4), also what `replay --json` prints. */
export function askJson(result: AgentResult) {
  return {
    answer: result.answer,
    citations: result.citations.map(({ id, chunkId, documentId, title, text, source, page, headingPath }) => ({ id, chunkId, documentId, title, text, source, page, headingPath })),
    unresolvedCitations: result.unresolvedCitations,
    finishReason: result.finishReason,
    partial: result.partial,
    steps: result.steps,
    toolCalls: result.toolCalls,
    usage: result.usage,
    ms: result.ms,
  };
}

/** Human output: tool activity dimmed on stderr, the answer streamed to stdout, then the sources. */
function humanListener(): (event: AgentEvent) => void {
  let streamed = false;
  return (event) => {
    if (event.type === 'tool-call') process.stderr.write(colors.dim(`  → ${event.toolName} ${JSON.stringify(event.input)}\n`));
    else if (event.type === 'tool-result' && !event.ok) process.stderr.write(colors.yellow(`  ✗ ${event.toolName}: ${event.summary}\n`));
    else if (event.type === 'error') process.stderr.write(colors.red(`  ! ${event.message}\n`));
    else if (event.type === 'text-delta') {
      if (!streamed) process.stdout.write('\n');
      streamed = true;
      process.stdout.write(event.delta);
    }
  };
}

function printSources(result: AgentResult): void {
  process.stdout.write('\n\n');
  if (result.citations.length) {
    console.log(colors.bold('Sources'));
    for (const citation of result.citations) {
      const where = [citation.headingPath.join(' › '), citation.page !== undefined ? `p. ${citation.page}` : ''].filter(Boolean).join(', ');
      console.log(`  [${citation.id}] ${citation.title} ${colors.dim(`— ${citation.source}${where ? ` (${where})` : ''}, chunk ${citation.chunkId}`)}`);
    }
  }
  if (result.unresolvedCitations.length) console.log(colors.red(`Unresolved citations (not sources): ${result.unresolvedCitations.join(', ')}`));
  console.log(colors.dim(`finish: ${result.finishReason}${result.partial ? ' (partial answer)' : ''} · ${result.steps} steps · ${result.toolCalls} tool calls · ${result.ms} ms`));
}

export async function askCommand(dossier: Dossier, options: AskCommandOptions): Promise<AgentResult> {
  const model = await resolveModel(options.model ?? configFromEnv().model);
  const tools = new ToolRegistry([...ragTools(), ...(options.toolsDir ? await loadUserTools(options.toolsDir) : [])]);
  const trace = options.trace ? new TraceWriter(options.trace) : undefined;
  const human = options.json ? undefined : humanListener();
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  process.once('SIGINT', onSignal);
  try {
    const result = await runAgent({
      dossier,
      question: options.question,
      model,
      tools,
      maxSteps: options.maxSteps,
      scope: { collections: options.collections?.length ? options.collections : '*' },
      signal: controller.signal,
      onEvent: (event) => {
        trace?.write(event);
        human?.(event);
      },
    });
    if (options.json) printJson(askJson(result));
    else printSources(result);
    return result;
  } finally {
    process.off('SIGINT', onSignal);
  }
}

/** Reruns a recorded run from its recorded model outputs against the same index. */
export async function replayCommand(dossier: Dossier, options: { trace: string; json: boolean }): Promise<{ result: AgentResult; reproduced: boolean }> {
  const events = readTrace(options.trace);
  const start = events.find((event) => event.type === 'run-start');
  const recorded = events.find((event) => event.type === 'final-answer');
  const model = ReplayModel.fromTrace(events);
  const human = options.json ? undefined : humanListener();
  const result = await runAgent({
    dossier,
    question: start?.type === 'run-start' ? start.question : '',
    model: { model, id: model.modelId, supportsTools: !(start?.type === 'run-start' && start.textTools) },
    maxSteps: events.filter((event) => event.type === 'step-start').length || 1,
    now: start?.type === 'run-start' ? new Date(start.time) : undefined,
    onEvent: human,
  });
  const reproduced = recorded?.type === 'final-answer' && recorded.answer === result.answer;
  if (options.json) printJson({ ...askJson(result), reproduced });
  else {
    printSources(result);
    console.log(reproduced ? colors.green('replay reproduced the recorded answer') : colors.red('replay differs from the recorded answer'));
  }
  return { result, reproduced };
}
