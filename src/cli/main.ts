import { parseArgs, type ParseArgsConfig } from 'node:util';
import { createDossier, type Dossier } from '../dossier.ts';
import { DossierError } from '../errors/index.ts';
import { SEARCH_MODES, type SearchMode } from '../retrieve/search.ts';
import { colors, printJson, progressBar, reportFailure, UsageError } from './output.ts';

const HELP = `dossier — answers you can check

Usage: dossier <command> [options]

Commands:
  ingest <path…> [--collection NAME]         ingest files, folders (recursively) and globs
  search <query> [--mode fulltext|vector|hybrid] [--k N] [--collection NAME] [--filter JSON]
  stats                                      documents, chunks, collections, bytes, embedder
  delete <documentId…>                       remove documents with their chunks and vectors
  eval beir <dir> [--split test|train] [--mode fulltext|vector|hybrid]

Options for every command:
  --db FILE     index file (default ./dossier.db, or $DOSSIER_DB)
  --json        one JSON object on stdout
  --embedder S  offline (default, or $DOSSIER_EMBEDDER), openai:<model>, ollama:<model>, openai-compatible:<model>
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

async function open(values: Values): Promise<Dossier> {
  return createDossier({ db: values.db as string | undefined, embedder: values.embedder as string | undefined });
}

async function ingest(argv: string[]): Promise<void> {
  const { values, positionals } = parse(argv, { collection: { type: 'string', short: 'c' } });
  if (positionals.length === 0) throw new UsageError('ingest needs at least one file, folder or glob');
  const dossier = await open(values);
  const bar = progressBar('ingest');
  try {
    const report = await dossier.ingest(positionals, {
      collection: (values.collection as string | undefined) ?? 'default',
      onProgress: ({ done, total, path }) => bar.update(done, total, path),
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
  if (kind !== 'beir') throw new UsageError(`eval needs a benchmark: beir (got "${kind ?? ''}")`);
  const { values, positionals } = parse(rest, { split: { type: 'string' }, mode: { type: 'string', short: 'm' } });
  const directory = positionals[0];
  if (!directory) throw new UsageError('eval beir needs a BEIR dataset folder');
  const split = (values.split as string | undefined) ?? 'test';
  const mode = modeOption(values, 'hybrid');
  const { runBeirCommand } = await import('../eval/beir-command.ts');
  const result = await runBeirCommand({ directory, split, mode, db: values.db as string | undefined, embedder: values.embedder as string | undefined });
  if (values.json) printJson(result);
  else
    console.log(
      `${result.dataset} ${result.split} (${result.queries} queries, ${result.mode}): nDCG@10 ${result['ndcg@10']}  Recall@100 ${result['recall@100']}  p50 ${result.p50Ms} ms`,
    );
}

const COMMANDS: Record<string, (argv: string[]) => Promise<void>> = { ingest, search, stats, delete: remove, eval: evaluate };

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
