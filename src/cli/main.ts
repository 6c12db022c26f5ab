import { existsSync } from 'node:fs';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { configFromEnv } from '../config/index.ts';
import { createDossier, type Dossier } from '../dossier.ts';
import { DossierError } from '../errors/index.ts';
import { SEARCH_MODES, type SearchMode } from '../retrieve/search.ts';
import { colors, printJson, progressBar, reportFailure, UsageError } from './output.ts';

const HELP = `dossier — answers you can check

Usage: dossier <command> [options]

Commands:
  ingest <path…> [--collection NAME] [--model M]
                                             ingest files, folders (recursively) and globs; with a real
                                             --model, it writes the document descriptions
  search <query> [--mode fulltext|vector|hybrid] [--k N] [--collection NAME] [--filter JSON]
  ask <question> [--model M] [--max-steps N] [--trace FILE] [--collection NAME] [--tools DIR]
                                             answer with cited sources (offline model by default)
  replay <trace.jsonl>                       rerun a recorded run from its recorded model outputs
  stats                                      documents, chunks, collections, bytes, embedder
  delete <documentId…>                       remove documents with their chunks and vectors
  eval beir <dir> [--split test|train] [--mode fulltext|vector|hybrid]
  eval hotpotqa <file.jsonl> [--limit N] [--offset N] [--model M]
  eval regression [dir] [--model M]          the regression set in eval/regression (five kinds of questions)

Options for every command:
  --db FILE     index file (default ./dossier.db, or $DOSSIER_DB)
  --json        one JSON object on stdout
  --embedder S  offline (default, or $DOSSIER_EMBEDDER), openai:<model>, ollama:<model>, openai-compatible:<model>
  --model M     (ask) offline (default, or $DOSSIER_MODEL), openai:<m>, anthropic:<m>, ollama:<m>, openai-compatible:<m>
  -h, --help    this help
`;

const COMMON = {
  db: { type: 'string' },
  json: { type: 'boolean', default: false },
  embedder: { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const satisfies ParseArgsConfig['options'];

type Values = Record<string, string | boolean | string[] | undefined>;

function parse(argv: string[], options: ParseArgsConfig['options']): { values: Values; positionals: string[] } {
  try {
    const { values, positionals } = parseArgs({ args: argv, options: { ...COMMON, ...options }, allowPositionals: true, strict: true });
    return { values: values as Values, positionals };
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function intOption(values: Values, name: string, fallback: number, min: number, max: number): number {
  const raw = values[name];
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) throw new UsageError(`--${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  return value;
}

function modeOption(values: Values, fallback: SearchMode): SearchMode {
  const mode = (values.mode as string | undefined) ?? fallback;
  if (!SEARCH_MODES.includes(mode as SearchMode)) throw new UsageError(`--mode must be fulltext, vector or hybrid, got "${mode}"`);
  return mode as SearchMode;
}

/** Commands that only read need an index to exist: a typo in --db must not answer from a new empty file. */
async function open(values: Values, options: { create?: boolean } = {}): Promise<Dossier> {
  const db = (values.db as string | undefined) ?? configFromEnv().db;
  if (!options.create && db !== ':memory:' && !existsSync(db)) {
    throw new DossierError('not-found', `no index at ${db}; create it with "dossier ingest <files…> --db ${db}"`);
  }
  return createDossier({ db, embedder: values.embedder as string | undefined });
}

async function ingest(argv: string[]): Promise<void> {
  const { values, positionals } = parse(argv, { collection: { type: 'string', short: 'c' }, model: { type: 'string' } });
  if (positionals.length === 0) throw new UsageError('ingest needs at least one file, folder or glob');
  const describer = await describerFor((values.model as string | undefined) ?? configFromEnv().model);
  const dossier = await open(values, { create: true });
  const bar = progressBar('ingest');
  try {
    const report = await dossier.ingest(positionals, {
      collection: (values.collection as string | undefined) ?? 'default',
      onProgress: ({ done, total, path }) => bar.update(done, total, path),
      describer,
    });
    bar.stop();
    if (values.json) printJson(report);
    else {
      const { ingested, updated, skipped, failed, chunks, seconds } = report;
      console.log(`${colors.green(`ingested ${ingested}`)} (${updated} updated), skipped ${skipped} unchanged, ${failed.length ? colors.red(`failed ${failed.length}`) : 'failed 0'}; ${chunks} chunks in ${seconds}s`);
      for (const failure of failed) console.log(`  ${colors.red('✗')} ${failure.path}: ${failure.error}`);
    }
    if (report.ingested + report.skipped === 0 && report.failed.length > 0) {
      const [first] = report.failed;
      process.stderr.write(`dossier: nothing was ingested; ${report.failed.length} failed (first: ${first.path}: ${first.error})\n`);
      process.exitCode = 1;
    }
  } finally {
    bar.stop();
    dossier.close();
  }
}

/** With a real model configured, document descriptions are written by it (extractive otherwise, or when it fails). */
async function describerFor(spec: string | undefined) {
  if (!spec || spec === 'offline') return undefined;
  const [{ resolveModel }, { callModel }, { modelDescriber }] = await Promise.all([
    import('../models/resolve.ts'),
    import('../models/call.ts'),
    import('../ingest/describe.ts'),
  ]);
  const { model } = await resolveModel(spec);
  return modelDescriber(async (prompt) => (await callModel({ model, messages: [{ role: 'user', content: prompt }], maxRetries: 2, timeoutMs: 60_000 })).text);
}

async function search(argv: string[]): Promise<void> {
  const { values, positionals } = parse(argv, {
    mode: { type: 'string', short: 'm' },
    k: { type: 'string' },
    collection: { type: 'string', short: 'c', multiple: true },
    filter: { type: 'string' },
  });
  const query = positionals.join(' ');
  if (!query.trim()) throw new UsageError('search needs a query');
  const mode = modeOption(values, 'hybrid');
  const k = intOption(values, 'k', 10, 1, 1000);
  let filter: Record<string, unknown> | undefined;
  if (values.filter !== undefined) {
    try {
      filter = JSON.parse(values.filter as string) as Record<string, unknown>;
    } catch {
      throw new UsageError(`--filter is not valid JSON: ${values.filter}`);
    }
  }
  const collections = values.collection as string[] | undefined;
  const dossier = await open(values);
  try {
    const started = performance.now();
    const hits = await dossier.search({ query, mode, k, filter, scope: { collections: collections?.length ? collections : '*' } });
    const ms = Math.round((performance.now() - started) * 100) / 100;
    if (values.json) {
      printJson({ hits, ms });
      return;
    }
    if (hits.length === 0) console.log('no results');
    hits.forEach((hit, i) => {
      const where = [hit.headingPath.join(' › '), hit.page !== undefined ? `p. ${hit.page}` : ''].filter(Boolean).join(', ');
      console.log(`${colors.bold(`${i + 1}. ${hit.title}`)} ${colors.dim(`[chunk ${hit.chunkId} · doc ${hit.documentId} · ${hit.score.toFixed(4)}]`)}`);
      console.log(`   ${colors.dim(hit.source + (where ? ` (${where})` : ''))}`);
      console.log(`   ${hit.text.replace(/\s+/g, ' ').slice(0, 240)}${hit.text.length > 240 ? '…' : ''}`);
    });
    console.log(colors.dim(`${hits.length} hits in ${ms} ms (${mode})`));
  } finally {
    dossier.close();
  }
}

async function stats(argv: string[]): Promise<void> {
  const { values } = parse(argv, {});
  const dossier = await open(values);
  try {
    const result = dossier.stats();
    const collections = dossier.store.collections();
    if (values.json) printJson({ ...result, collectionNames: collections.map((c) => c.name) });
    else {
      console.log(`documents   ${result.documents}\nchunks      ${result.chunks}\ncollections ${result.collections}\nbytes       ${result.bytes}`);
      console.log(`embedder    ${result.embedder ? `${result.embedder.embedderId} (${result.embedder.dimensions} dims)` : 'none yet'}`);
      for (const collection of collections) console.log(`  ${collection.name}: ${collection.documents} documents`);
    }
  } finally {
    dossier.close();
  }
}

async function remove(argv: string[]): Promise<void> {
  const { values, positionals } = parse(argv, {});
  if (positionals.length === 0) throw new UsageError('delete needs at least one document id (see search or stats)');
  const ids = positionals.map((raw) => {
    const id = Number(raw);
    if (!Number.isInteger(id) || id <= 0) throw new UsageError(`not a document id: "${raw}"`);
    return id;
  });
  const dossier = await open(values);
  try {
    const deleted: number[] = [];
    const notFound: number[] = [];
    for (const id of ids) (dossier.deleteDocument(id) ? deleted : notFound).push(id);
    if (values.json) printJson({ deleted, notFound });
    else {
      if (deleted.length) console.log(`deleted ${deleted.join(', ')}`);
      if (notFound.length) console.log(colors.red(`not found: ${notFound.join(', ')}`));
    }
    if (notFound.length) process.exitCode = 1;
  } finally {
    dossier.close();
  }
}

async function evaluate(argv: string[]): Promise<void> {
  const [kind, ...rest] = argv;
  if (kind === 'hotpotqa') return evaluateHotpot(rest);
  if (kind === 'regression') return evaluateRegression(rest);
  if (kind !== 'beir') throw new UsageError(`eval needs a benchmark: beir, hotpotqa or regression (got "${kind ?? ''}")`);
  const { values, positionals } = parse(rest, { split: { type: 'string' }, mode: { type: 'string', short: 'm' } });
  const directory = positionals[0];
  if (!directory) throw new UsageError('eval beir needs a BEIR dataset folder');
  const split = (values.split as string | undefined) ?? 'test';
  const mode = modeOption(values, 'hybrid');
  const { runBeirCommand } = await import('../eval/eval-commands.ts');
  const result = await runBeirCommand({ directory, split, mode, db: values.db as string | undefined, embedder: values.embedder as string | undefined });
  if (values.json) printJson(result);
  else
    console.log(
      `${result.dataset} ${result.split} (${result.queries} queries, ${result.mode}): nDCG@10 ${result['ndcg@10']}  Recall@100 ${result['recall@100']}  p50 ${result.p50Ms} ms`,
    );
}

async function evaluateHotpot(argv: string[]): Promise<void> {
  const { values, positionals } = parse(argv, { limit: { type: 'string' }, offset: { type: 'string' }, model: { type: 'string' } });
  if (!positionals[0]) throw new UsageError('eval hotpotqa needs a HotpotQA .jsonl file');
  const limit = values.limit === undefined ? undefined : intOption(values, 'limit', 500, 1, 1_000_000);
  const offset = intOption(values, 'offset', 0, 0, 1_000_000);
  const { runHotpotCommand } = await import('../eval/eval-commands.ts');
  const result = await runHotpotCommand({ file: positionals[0], limit, offset, db: values.db as string | undefined, model: values.model as string | undefined });
  if (values.json) printJson(result);
  else {
    console.log(`HotpotQA pooled, ${result.questions} questions (from #${result.offset}):`);
    console.log(`  single-shot  Recall@2 ${result.singleShot['recall@2']}  Recall@5 ${result.singleShot['recall@5']}`);
    const a = result.agent;
    console.log(`  agent        Recall@2 ${a['recall@2']}  Recall@5 ${a['recall@5']}  answer contains ${a.answerContains}  F1 ${a.f1}  tool calls ${a.toolCallsMean}  evidence ${a.evidenceMean}`);
  }
}

async function evaluateRegression(argv: string[]): Promise<void> {
  const { values, positionals } = parse(argv, { model: { type: 'string' } });
  const { runRegressionCommand } = await import('../eval/eval-commands.ts');
  const report = await runRegressionCommand({ directory: positionals[0], model: values.model as string | undefined });
  if (values.json) printJson(report);
  else {
    for (const outcome of report.outcomes) {
      console.log(`${outcome.answerPass ? colors.green('pass') : colors.red('fail')} ${outcome.kind.padEnd(13)} ${outcome.id.padEnd(22)} citations ${outcome.citationHit.toFixed(2)}  ${outcome.finishReason}`);
    }
    console.log(`${report.questions} questions: answers ${report.answerPassRate}, citation hit rate ${report.citationHitRate}, tool calls ${report.toolCallsMean}, unresolved citations ${report.unresolvedCitations}`);
  }
}

async function ask(argv: string[]): Promise<void> {
  const { values, positionals } = parse(argv, {
    mode: { type: 'string', short: 'm' },
    model: { type: 'string' },
    'max-steps': { type: 'string' },
    trace: { type: 'string' },
    collection: { type: 'string', short: 'c', multiple: true },
    tools: { type: 'string' },
  });
  const question = positionals.join(' ');
  if (!question.trim()) throw new UsageError('ask needs a question');
  const mode = (values.mode as string | undefined) ?? 'rag';
  if (mode === 'research') throw new UsageError('--mode research is not available yet; use --mode rag');
  if (mode !== 'rag') throw new UsageError(`--mode must be rag or research, got "${mode}"`);
  const maxSteps = intOption(values, 'max-steps', 10, 1, 100);
  const dossier = await open(values);
  try {
    const { askCommand } = await import('./ask.ts');
    await askCommand(dossier, {
      question,
      model: values.model as string | undefined,
      maxSteps,
      trace: values.trace as string | undefined,
      json: Boolean(values.json),
      collections: values.collection as string[] | undefined,
      toolsDir: values.tools as string | undefined,
    });
  } finally {
    dossier.close();
  }
}

async function replay(argv: string[]): Promise<void> {
  const { values, positionals } = parse(argv, {});
  if (!positionals[0]) throw new UsageError('replay needs a trace file (from ask --trace)');
  const dossier = await open(values);
  try {
    const { replayCommand } = await import('./ask.ts');
    const { reproduced } = await replayCommand(dossier, { trace: positionals[0], json: Boolean(values.json) });
    if (!reproduced) process.exitCode = 1;
  } finally {
    dossier.close();
  }
}

const COMMANDS: Record<string, (argv: string[]) => Promise<void>> = { ingest, search, ask, replay, stats, delete: remove, eval: evaluate };

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  const json = rest.includes('--json');
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(HELP);
    return;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(HELP);
    return;
  }
  const run = COMMANDS[command];
  try {
    if (!run) throw new UsageError(`unknown command "${command}" (commands: ${Object.keys(COMMANDS).join(', ')})`);
    await run(rest);
  } catch (error) {
    reportFailure(error, json);
    if (!(error instanceof UsageError) && !DossierError.isInstance(error) && process.env.DOSSIER_DEBUG) console.error(error);
  }
}

await main(process.argv.slice(2));
