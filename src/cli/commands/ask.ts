import type { AgentEvent, Citation } from '../../protocol/events.ts';
import type { AskResult } from '../../ask/ask.ts';
import { intOption, listOption, numberOption, parse, stringOption, type Values } from '../args.ts';
import { CodeBlockFormatter, formatCodeBlocks } from '../code-text.ts';
import { UsageError, type CommandContext } from '../io.ts';
import { withIndex } from './open.ts';
import { userInfo } from 'node:os';
import { configFromEnv } from '../../config/index.ts';
import { loadPolicy } from '../../config/policy.ts';

/**
 * Human output: tool activity dimmed on stderr, the answer streamed to stdout (its fenced code as
 * indented blocks). In research mode stderr is a live tree: the plan, each nested agent (indented by
 * its path) with its searches as they happen, and the critique. `finish()` prints what the answer
 * still held back (a last line that may have been a fence).
 */
function humanListener(context: CommandContext): { onEvent: (event: AgentEvent) => void; finish: () => void } {
  const { io, err } = context;
  let streamed = false;
  const answer = new CodeBlockFormatter(context.out);
  const shown = new Map<string, string>();
  const finish = () => void io.stdout.write(answer.end());
  const onEvent = (event: AgentEvent) => {
    const indent = '  '.repeat(1 + (event.path?.length ?? 0));
    const nested = event.path !== undefined;
    const who = nested ? `${event.path!.at(-1)} ` : '';
    if (event.type === 'plan') {
      // The whole plan once; after that, only the sub-questions whose status changed.
      if (shown.size === 0) io.stderr.write(err.bold(`${indent}plan: ${event.brief}\n`));
      for (const item of event.items) {
        if (shown.get(item.id) === item.status) continue;
        shown.set(item.id, item.status);
        io.stderr.write(
          err.dim(
            `${indent}  ${item.status === 'answered' ? '✓' : item.status === 'failed' ? '✗' : '·'} ${item.id} ${item.question}${item.status === 'open' ? '' : ` (${item.status})`}\n`,
          ),
        );
      }
    } else if (event.type === 'subagent-start') io.stderr.write(err.cyan(`${indent}▸ ${event.id}: ${event.question}\n`));
    else if (event.type === 'subagent-finish')
      io.stderr.write(
        (event.error ? err.red : err.dim)(
          `${indent}◂ ${event.id}: ${event.finishReason}, ${event.citations} cited, ${event.ms} ms${event.error ? ` (${event.error})` : ''}\n`,
        ),
      );
    else if (event.type === 'critique') {
      const findings = event.findings ?? event.checks.filter((c) => c.verdict !== 'supported');
      io.stderr.write(
        (findings.length || event.openQuestions.length ? err.yellow : err.dim)(
          `${indent}critique${event.model ? ` (${event.model})` : ''}${event.final ? ' of the answer' : ''}: ${event.checks.length} claims checked, ${findings.length} findings, ${event.openQuestions.length} open\n`,
        ),
      );
    } else if (event.type === 'approval-required') io.stderr.write(err.yellow(`${indent}approval required: ${event.reason}\n`));
    else if (event.type === 'tool-call') {
      if (event.toolName !== 'rag' && event.toolName !== 'plan')
        io.stderr.write(err.dim(`${indent}${who}→ ${event.toolName} ${JSON.stringify(event.input).slice(0, 200)}\n`));
    } else if (event.type === 'tool-result' && !event.ok)
      io.stderr.write(err.yellow(`${indent}${who}✗ ${event.toolName}: ${event.summary}\n`));
    else if (event.type === 'error') io.stderr.write(err.red(`${indent}! ${event.message}\n`));
    else if (event.type === 'text-delta' && !nested) {
      if (!streamed) io.stdout.write('\n');
      streamed = true;
      io.stdout.write(answer.push(event.delta));
    }
  };
  return { onEvent, finish };
}

/** A passage as the sources list shows it: its title, then where it is. */
function passageLine(passage: Citation, out: CommandContext['out']): string {
  const where = [passage.headingPath.join(' › '), passage.page !== undefined ? `p. ${passage.page}` : ''].filter(Boolean).join(', ');
  return `${passage.title} ${out.dim(`— ${passage.source}${where ? ` (${where})` : ''}, chunk ${passage.chunkId}`)}`;
}

function printSources(result: AskResult, context: CommandContext): void {
  const { out } = context;
  context.io.stdout.write('\n\n');
  if (result.citations.length) {
    context.print(out.bold('Sources'));
    for (const citation of result.citations) context.print(`  [${citation.id}] ${passageLine(citation, out)}`);
  }
  if (result.closestPassages?.length) {
    context.print(out.bold('Closest passages (not an answer)'));
    for (const passage of result.closestPassages) context.print(`  ${passageLine(passage, out)}`);
  }
  if (result.unresolvedCitations.length)
    context.print(out.red(`Unresolved citations (not sources): ${result.unresolvedCitations.join(', ')}`));
  // Findings and open sub-questions beside the answer, each with who raised it; the answer is the model's, word for word.
  const findings = result.critique?.findings ?? [];
  if (findings.length) {
    context.print(out.bold(`Critique findings (${result.critique?.model ?? 'critique'})`));
    for (const f of findings)
      context.print(out.yellow(`  ${f.claim ? `"${f.claim.slice(0, 160)}": ` : ''}${f.finding} ${out.dim(`(by ${f.by})`)}`));
  }
  for (const warning of (result.warnings ?? []).filter((w) => w.by !== 'citation-check'))
    context.print(out.yellow(`Open: ${warning.message} ${out.dim(`(by ${warning.by})`)}`));
  // Said once, here rather than in the answer: the answer text stays the answer.
  if (result.model === 'offline')
    context.print(
      out.dim('offline model: the answer is extracted from the documents, not written by a language model (set --model for one)'),
    );
  context.print(
    out.dim(
      `finish: ${result.finishReason}${result.partial ? ' (partial answer)' : ''} · ${result.steps} steps · ${result.toolCalls} tool calls · ${result.ms} ms`,
    ),
  );
}

/** A failed or aborted run exits non-zero with its reason on stderr, whatever else was printed. */
function exitCodeOf(result: AskResult, context: CommandContext): number {
  if (!result.error) return 0;
  context.io.stderr.write(`dossier: the run ${result.finishReason === 'aborted' ? 'was aborted' : 'failed'}: ${result.error.message}\n`);
  return 1;
}

export async function ask(argv: string[], context: CommandContext): Promise<number> {
  const { values, positionals } = parse(argv, 'ask', { max: Infinity });
  const question = positionals.join(' ');
  if (!question.trim()) throw new UsageError('ask needs a question');
  const mode = stringOption(values, 'mode') ?? 'rag';
  if (mode !== 'rag' && mode !== 'research') throw new UsageError(`--mode must be rag or research, got "${mode}"`);
  if (values['reasoning-model'] !== undefined && mode !== 'research') throw new UsageError('--reasoning-model needs --mode research');
  if (values['critique-model'] !== undefined && mode !== 'research') throw new UsageError('--critique-model needs --mode research');
  const maxSteps = intOption(values, 'max-steps', mode === 'research' ? 15 : 10, 1, 100);
  const timeoutSeconds = numberOption(values, 'timeout', 0.001, 86_400);
  const contextTokens = values['context-tokens'] === undefined ? undefined : intOption(values, 'context-tokens', 8000, 200, 10_000_000);
  // A bad policy file fails before the index is opened.
  const policy = loadPolicy(stringOption(values, 'config') ?? configFromEnv(context.io.env).configFile);
  return withIndex(values, context, 'read', async (dossier) => {
    const controller = new AbortController();
    const onSignal = () => controller.abort();
    context.io.signal?.addEventListener('abort', onSignal);
    const interactive = context.io.signal === undefined;
    if (interactive) process.once('SIGINT', onSignal);
    const listener = context.json ? undefined : humanListener(context);
    try {
      const result = await dossier.ask({
        question,
        mode,
        reasoningModel: stringOption(values, 'reasoning-model'),
        critiqueModel: stringOption(values, 'critique-model'),
        model: stringOption(values, 'model'),
        maxSteps,
        ...(contextTokens !== undefined ? { contextTokens } : {}),
        timeoutSeconds,
        trace: stringOption(values, 'trace'),
        collections: listOption(values, 'collection'),
        toolsDir: stringOption(values, 'tools'),
        policy,
        runsDir: runsDirFor(values, context),
        signal: controller.signal,
        onEvent: listener?.onEvent,
      });
      listener?.finish();
      if (context.json) context.printJson(result);
      else {
        if (result.finishReason === 'needs-approval') context.print(formatCodeBlocks(result.answer, context.out));
        printSources(result, context);
      }
      return exitCodeOf(result, context);
    } finally {
      if (interactive) process.off('SIGINT', onSignal);
      context.io.signal?.removeEventListener('abort', onSignal);
    }
  });
}

/** Runs paused for approval live beside the index: DOSSIER_RUNS_DIR, or `<db>.runs`. */
function runsDirFor(values: Values, context: CommandContext): string {
  const config = configFromEnv(context.io.env);
  return config.runsDir ?? `${stringOption(values, 'db') ?? config.db}.runs`;
}

/** `dossier approve <runId> [--deny] [--by NAME] [--note TEXT]`: decides a run paused for approval. */
export async function approve(argv: string[], context: CommandContext): Promise<number> {
  const { values, positionals } = parse(argv, 'approve', {
    min: 1,
    max: 1,
    what: 'run id',
    missing: 'approve needs the run id of a paused run (from ask: finish reason needs-approval)',
  });
  const by = stringOption(values, 'by') ?? context.io.env.USER ?? userInfo().username;
  // Deciding writes only the runs folder, never the index.
  return withIndex(values, context, 'read', async (dossier) => {
    const result = await dossier.approve(positionals[0], {
      runsDir: runsDirFor(values, context),
      deny: values.deny === true,
      by,
      note: stringOption(values, 'note'),
    });
    if (context.json) context.printJson(result);
    else {
      context.print(formatCodeBlocks(result.answer, context.out));
      if (result.decision === 'approved') printSources(result, context);
      else context.print(context.out.dim(`run ${result.runId} denied by ${by}`));
    }
    return 0;
  });
}

export async function replay(argv: string[], context: CommandContext): Promise<number> {
  const { values, positionals } = parse(argv, 'replay', {
    min: 1,
    max: 1,
    what: 'trace file',
    missing: 'replay needs a trace file (from ask --trace)',
  });
  return withIndex(values, context, 'read', async (dossier) => {
    const listener = context.json ? undefined : humanListener(context);
    const result = await dossier.replay(positionals[0], { onEvent: listener?.onEvent });
    listener?.finish();
    if (context.json) context.printJson(result);
    else {
      printSources(result, context);
      context.print(
        result.same
          ? context.out.green('replay reproduced the recorded answer')
          : context.out.red('replay differs from the recorded answer'),
      );
    }
    if (!result.same) {
      context.io.stderr.write('dossier: the replay differs from the recorded answer\n');
      return 1;
    }
    return exitCodeOf(result, context);
  });
}
