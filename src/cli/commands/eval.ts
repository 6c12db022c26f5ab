import { intOption, parse, stringOption, type Values, numberOption } from '../args.ts';
import { progressBar, UsageError, type CommandContext } from '../io.ts';
import { modeOption } from './search.ts';
import { EVAL_MODES, type EvalMode } from '../../eval/run-question.ts';
import type { AbstentionScore } from '../../eval/regression.ts';

/** `--mode rag|research` of the question-answering evaluations. */
function agentMode(values: Values): EvalMode {
  const mode = stringOption(values, 'mode') ?? 'rag';
  if (!EVAL_MODES.includes(mode as EvalMode)) throw new UsageError(`--mode must be rag or research, got "${mode}"`);
  return mode as EvalMode;
}

/** The abstention line of a question-answering report: recall and precision against the `notFound` questions. */
function abstentionLine(a: AbstentionScore): string {
  return (
    `abstention: recall ${a.recall} (${a.abstained - a.wrongAbstentions}/${a.unanswerable} unanswerable abstained), ` +
    `precision ${a.precision} (of ${a.abstained} abstentions), wrong abstentions ${a.wrongAbstentions}/${a.answerable} answerable`
  );
}

/** One progress bar per phase of an evaluation. */
async function phases(context: CommandContext) {
  let current: { phase: string; bar: Awaited<ReturnType<typeof progressBar>> } | undefined;
  return {
    onProgress: async (phase: string, done: number, total: number) => {
      if (current?.phase !== phase) {
        current?.bar.stop();
        current = { phase, bar: await progressBar(context.io, phase) };
      }
      current.bar.update(done, total);
    },
    stop: () => current?.bar.stop(),
  };
}

export async function evaluate(argv: string[], context: CommandContext): Promise<number> {
  const [kind, ...rest] = argv;
  const progress = await phases(context);
  const onProgress = (phase: string, done: number, total: number) => void progress.onProgress(phase, done, total);
  const evals = await import('../../eval/index.ts');
  const env = context.io.env;
  try {
    if (kind === 'beir') {
      const { values, positionals } = parse(rest, 'eval beir', {
        min: 1,
        max: 1,
        what: 'BEIR dataset folder',
        missing: 'eval beir needs a BEIR dataset folder',
      });
      const result = await evals.runBeirEval({
        directory: positionals[0],
        split: stringOption(values, 'split') ?? 'test',
        mode: modeOption(values, 'hybrid'),
        db: stringOption(values, 'db'),
        embedder: stringOption(values, 'embedder'),
        reranker: stringOption(values, 'reranker'),
        env,
        onProgress,
      });
      progress.stop();
      if (context.json) context.printJson(result);
      else
        context.print(
          `${result.dataset} ${result.split} (${result.queries} queries, ${result.mode}): nDCG@10 ${result['ndcg@10']}  Recall@100 ${result['recall@100']}  p50 ${result.p50Ms} ms`,
        );
      return 0;
    }
    if (kind === 'context') {
      const { values, positionals } = parse(rest, 'eval context', {
        min: 1,
        max: 1,
        what: 'questions file',
        missing: 'eval context needs a questions file: a docs set (.json) or HotpotQA (.jsonl)',
      });
      const report = await evals.runContextEvalCommand({
        file: positionals[0],
        answers: stringOption(values, 'answers'),
        corpus: stringOption(values, 'corpus'),
        limit: values.limit === undefined ? undefined : intOption(values, 'limit', 500, 1, 1_000_000),
        offset: intOption(values, 'offset', 0, 0, 1_000_000),
        db: stringOption(values, 'db'),
        embedder: stringOption(values, 'embedder'),
        env,
        onProgress,
      });
      progress.stop();
      if (context.json) context.printJson(report);
      else {
        context.print(
          `${report.questions} questions (${report.answerable} with a gold answer): answer shown ${report.answerShown}, retrieved ${report.answerRetrieved}, retrieved but not shown ${report.retrievedNotShown}; ` +
            `per search ${report.charsPerSearch} characters, ${report.tokensPerSearch} tokens; passages cut ${report.passagesCut}, addressed ${report.passagesAddressed}`,
        );
      }
      return 0;
    }
    if (kind === 'hotpotqa') {
      const { values, positionals } = parse(rest, 'eval hotpotqa', {
        min: 1,
        max: 1,
        what: 'HotpotQA file',
        missing: 'eval hotpotqa needs a HotpotQA .jsonl file',
      });
      const result = await evals.runHotpotEval({
        file: positionals[0],
        limit: values.limit === undefined ? undefined : intOption(values, 'limit', 500, 1, 1_000_000),
        offset: intOption(values, 'offset', 0, 0, 1_000_000),
        db: stringOption(values, 'db'),
        model: stringOption(values, 'model'),
        mode: agentMode(values),
        reranker: stringOption(values, 'reranker'),
        graph: values.graph === true,
        graphWeight: numberOption(values, 'graph-weight', 0, 100),
        env,
        onProgress,
      });
      progress.stop();
      if (context.json) context.printJson(result);
      else {
        const a = result.agent;
        context.print(`HotpotQA pooled, ${result.questions} questions (from #${result.offset}):`);
        context.print(`  single-shot  Recall@2 ${result.singleShot['recall@2']}  Recall@5 ${result.singleShot['recall@5']}`);
        context.print(
          `  agent        Recall@2 ${a['recall@2']}  Recall@5 ${a['recall@5']}  answer contains ${a.answerContains}  EM ${a.em}  F1 ${a.f1}  tool calls ${a.toolCallsMean}  evidence ${a.evidenceMean}`,
        );
      }
      return 0;
    }
    if (kind === 'regression') {
      const { values, positionals } = parse(rest, 'eval regression', { max: 1, what: 'regression folder' });
      const report = await evals.runRegressionEval({
        directory: positionals[0],
        model: stringOption(values, 'model'),
        mode: agentMode(values),
        graph: values.graph === true,
        env,
      });
      if (context.json) context.printJson(report);
      else {
        const { out } = context;
        for (const o of report.outcomes)
          context.print(
            `${o.answerPass ? out.green('pass') : out.red('fail')} ${o.kind.padEnd(13)} ${o.id.padEnd(22)} citations ${o.citationHit.toFixed(2)}  ${o.finishReason}`,
          );
        context.print(
          `${report.questions} questions: answers ${report.answerPassRate}, citation hit rate ${report.citationHitRate}, tool calls ${report.toolCallsMean}, unresolved citations ${report.unresolvedCitations}`,
        );
        context.print(abstentionLine(report.abstention));
      }
      return 0;
    }
    if (kind === 'research-dev') {
      const { values, positionals } = parse(rest, 'eval research-dev', { max: 1, what: 'questions file' });
      const report = await evals.runResearchDevEval({
        file: positionals[0],
        corpus: stringOption(values, 'corpus'),
        model: stringOption(values, 'model'),
        critiqueModel: stringOption(values, 'critique-model'),
        mode: values.mode === undefined ? 'research' : agentMode(values),
        env,
        onProgress,
      });
      progress.stop();
      if (context.json) context.printJson(report);
      else {
        const { out } = context;
        for (const o of report.outcomes) {
          const ok = o.subQuestions.filter((s) => s.ok).length;
          context.print(
            `${ok === o.subQuestions.length ? out.green('pass') : out.yellow(`${ok}/${o.subQuestions.length}`)} ${o.corpus.padEnd(10)} ${o.kind.padEnd(19)} ${o.id}`,
          );
          for (const s of o.subQuestions.filter((s) => !s.ok))
            context.print(out.dim(`     missing for "${s.question}": ${s.missing.join(', ')}`));
        }
        context.print(
          `${report.questions} questions, ${report.subQuestions} sub-questions (${report.mode}, ${report.model}): answered with cited evidence ${report.answeredWithEvidence}, open ones said open ${report.openHandled}, report strings ${report.reportContains}, unresolved citations ${report.unresolvedCitations}`,
        );
      }
      return 0;
    }
    if (kind === 'docs') {
      const { values, positionals } = parse(rest, 'eval docs', { max: 1, what: 'questions file' });
      const report = await evals.runDocsEval({
        file: positionals[0],
        corpus: stringOption(values, 'corpus'),
        model: stringOption(values, 'model'),
        mode: agentMode(values),
        embedder: stringOption(values, 'embedder'),
        env,
        onProgress,
      });
      progress.stop();
      if (context.json) context.printJson(report);
      else {
        const { out } = context;
        const oneLine = (text: string) => {
          const line = text.replace(/\s+/g, ' ').trim();
          return line.length > 300 ? `${line.slice(0, 299)}…` : line;
        };
        for (const o of report.outcomes) {
          context.print(
            `${o.answerPass ? out.green('pass') : out.red('fail')} ${o.kind.padEnd(13)} ${o.id.padEnd(30)} citations ${o.citationHit.toFixed(2)}  ${o.finishReason}`,
          );
          context.print(`     ${oneLine(o.answer)}`);
        }
        const row = (
          name: string,
          s: { questions: number; answerPassRate: number; citationHitRate: number; toolCallsMean: number; unresolvedCitations: number },
        ) =>
          `  ${name.padEnd(14)} ${String(s.questions).padStart(9)} ${s.answerPassRate.toFixed(3).padStart(8)} ${s.citationHitRate.toFixed(3).padStart(10)} ${s.toolCallsMean.toFixed(1).padStart(11)} ${String(s.unresolvedCitations).padStart(11)}`;
        context.print('');
        context.print(
          `  ${'kind'.padEnd(14)} ${'questions'.padStart(9)} ${'answers'.padStart(8)} ${'citations'.padStart(10)} ${'tool calls'.padStart(11)} ${'unresolved'.padStart(11)}`,
        );
        for (const [name, s] of Object.entries(report.byKind)) context.print(row(name, s));
        for (const [name, s] of Object.entries(report.byCorpus)) {
          context.print(row(`[${name}]`, s));
          if (s.failed.length)
            context.print(
              `  ${name}: ${s.failed.length} file${s.failed.length > 1 ? 's' : ''} not ingested (${s.failed.map((f) => `${f.path}: ${f.error}`).join('; ')})`,
            );
        }
        context.print(row('all', report));
        context.print(
          `${report.questions} questions (${report.model}): answers ${report.answerPassRate}, citation hit rate ${report.citationHitRate}, tool calls ${report.toolCallsMean}, unresolved citations ${report.unresolvedCitations}`,
        );
        context.print(abstentionLine(report.abstention));
      }
      return 0;
    }
    throw new UsageError(`eval needs a benchmark: beir, hotpotqa, regression, docs, research-dev or context (got "${kind ?? ''}")`);
  } finally {
    progress.stop();
  }
}
