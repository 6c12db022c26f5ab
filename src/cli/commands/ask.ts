import type { AgentEvent } from '../../agent/events.ts';
import type { AskResult } from '../../agent/ask.ts';
import { intOption, listOption, numberOption, parse, stringOption } from '../args.ts';
import { UsageError, type CommandContext } from '../io.ts';
import { withIndex } from './open.ts';

/** Human output: tool activity dimmed on stderr, the answer streamed to stdout. */
function humanListener(context: CommandContext): (event: AgentEvent) => void {
  const { io, err } = context;
  let streamed = false;
  return (event) => {
    if (event.type === 'tool-call') io.stderr.write(err.dim(`  → ${event.toolName} ${JSON.stringify(event.input)}\n`));
    else if (event.type === 'tool-result' && !event.ok) io.stderr.write(err.yellow(`  ✗ ${event.toolName}: ${event.summary}\n`));
    else if (event.type === 'error') io.stderr.write(err.red(`  ! ${event.message}\n`));
    else if (event.type === 'text-delta') {
      if (!streamed) io.stdout.write('\n');
      streamed = true;
      io.stdout.write(event.delta);
    }
  };
}

function printSources(result: AskResult, context: CommandContext): void {
  const { out } = context;
  context.io.stdout.write('\n\n');
  if (result.citations.length) {
    context.print(out.bold('Sources'));
    for (const citation of result.citations) {
      const where = [citation.headingPath.join(' › '), citation.page !== undefined ? `p. ${citation.page}` : ''].filter(Boolean).join(', ');
      context.print(`  [${citation.id}] ${citation.title} ${out.dim(`— ${citation.source}${where ? ` (${where})` : ''}, chunk ${citation.chunkId}`)}`);
    }
  }
  if (result.unresolvedCitations.length) context.print(out.red(`Unresolved citations (not sources): ${result.unresolvedCitations.join(', ')}`));
  // Said once, here rather than in the answer: the answer text stays the answer.
  if (result.model === 'offline') context.print(out.dim('offline model: the answer is extracted from the documents, not written by a language model (set --model for one)'));
  context.print(out.dim(`finish: ${result.finishReason}${result.partial ? ' (partial answer)' : ''} · ${result.steps} steps · ${result.toolCalls} tool calls · ${result.ms} ms`));
}

/** A failed or aborted run exits non-zero with its reason on stderr, whatever else was printed. */
function exitCodeOf(result: AskResult, context: CommandContext): number {
  if (!result.error) return 0;
  context.io.stderr.write(`dossier: the run ${result.finishReason === 'aborted' ? 'was aborted' : 'failed'}: ${result.error.message}\n`);
  return 1;
}

export async function ask(argv: string[], context: CommandContext): Promise<number> {
  const { values, positionals } = parse(
    argv,
    {
      mode: { type: 'string', short: 'm' },
      model: { type: 'string' },
      'max-steps': { type: 'string' },
      timeout: { type: 'string' },
      trace: { type: 'string' },
      collection: { type: 'string', short: 'c', multiple: true },
      tools: { type: 'string' },
    },
    { max: Infinity },
  );
  const question = positionals.join(' ');
  if (!question.trim()) throw new UsageError('ask needs a question');
  const mode = stringOption(values, 'mode') ?? 'rag';
  if (mode === 'research') throw new UsageError('--mode research is not available yet; use --mode rag');
  if (mode !== 'rag') throw new UsageError(`--mode must be rag or research, got "${mode}"`);
  const maxSteps = intOption(values, 'max-steps', 10, 1, 100);
  const timeoutSeconds = numberOption(values, 'timeout', 0.001, 86_400);
  return withIndex(values, context, 'read', async (dossier) => {
    const controller = new AbortController();
    const onSignal = () => controller.abort();
    context.io.signal?.addEventListener('abort', onSignal);
    const interactive = context.io.signal === undefined;
    if (interactive) process.once('SIGINT', onSignal);
    try {
      const result = await dossier.ask({
        question,
        model: stringOption(values, 'model'),
        maxSteps,
        timeoutSeconds,
        trace: stringOption(values, 'trace'),
        collections: listOption(values, 'collection'),
        toolsDir: stringOption(values, 'tools'),
        signal: controller.signal,
        onEvent: context.json ? undefined : humanListener(context),
      });
      if (context.json) context.printJson(result);
      else printSources(result, context);
      return exitCodeOf(result, context);
    } finally {
      if (interactive) process.off('SIGINT', onSignal);
      context.io.signal?.removeEventListener('abort', onSignal);
    }
  });
}

export async function replay(argv: string[], context: CommandContext): Promise<number> {
  const { values, positionals } = parse(argv, {}, { min: 1, max: 1, what: 'trace file', missing: 'replay needs a trace file (from ask --trace)' });
  return withIndex(values, context, 'read', async (dossier) => {
    const result = await dossier.replay(positionals[0], { onEvent: context.json ? undefined : humanListener(context) });
    if (context.json) context.printJson(result);
    else {
      printSources(result, context);
      context.print(result.same ? context.out.green('replay reproduced the recorded answer') : context.out.red('replay differs from the recorded answer'));
    }
    if (!result.same) {
      context.io.stderr.write('dossier: the replay differs from the recorded answer\n');
      return 1;
    }
    return exitCodeOf(result, context);
  });
}
