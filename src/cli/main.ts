import { commandContext, processIo, reportFailure, UsageError, type CliIo, type CommandContext } from './io.ts';
import { VERSION } from '../version.ts';

const HELP = `dossier — answers you can check

Usage: dossier <command> [options]

Commands:
  ingest <path…> [--collection NAME] [--metadata k=v]… [--sync] [--model M] [--no-ocr]
                                             ingest files, folders (recursively) and globs; --sync also
                                             removes documents whose files are gone; with a real --model,
                                             it writes the document descriptions; images and scanned PDF
                                             pages are read by OCR unless --no-ocr
  ingest <path…> --queue --db postgres://…   enqueue the files as one job for "dossier worker" (paths on a
                                             file system the workers share; prints {job} with --json)
  worker [--concurrency N]                   claim and ingest queued jobs (PostgreSQL) until SIGINT/SIGTERM
  list [--collection NAME] [--limit N] [--offset N]
                                             the documents in the index
  search <query> [--mode fulltext|vector|hybrid] [--k N] [--collection NAME] [--filter JSON]
  ask <question> [--model M] [--max-steps N] [--timeout SECONDS] [--trace FILE] [--collection NAME] [--tools DIR]
                                             answer with cited sources (offline model by default)
       [--mode rag|research] [--reasoning-model M] [--critique-model M] [--config FILE] [--context-tokens N]
                                             research: a plan of sub-questions answered by nested agents,
                                             critiqued, then a cited report; --config: tool permissions and
                                             approval rules (default ./dossier.config.json); --context-tokens:
                                             tool results the transcript holds before older ones are compacted
                                             to one line each (default 8000)
  approve <runId> [--deny] [--by NAME] [--note TEXT]
                                             release (or deny) the answer of a run paused for approval
  replay <trace.jsonl>                       rerun a recorded run from its recorded model outputs
  serve [--host H] [--port P] [--auth none|keys] [--config FILE] [--workers N]
                                             the HTTP API (/docs, /openapi.json), MCP at /mcp and the web page at /;
                                             off loopback it needs --auth keys; on PostgreSQL, uploads are
                                             queued and N in-process workers (default 1, 0 = none) ingest them
  mcp [--collection NAME]… [--model M]       an MCP server over stdio (tools: search, ask, research,
                                             get_content, list_documents; documents as resources)
  users create <name> [--admin]              a server user and its first API key
  keys create --user NAME                    another API key for a user
  collections grant <collection> <user> --role reader|writer|owner
  stats                                      documents, chunks, collections, bytes, embedder
  delete <documentId…>                       remove documents with their chunks and vectors
  migrate                                    upgrade an index made by an older Dossier
  migrate --from FILE.db --to postgres://…   move an index into an empty PostgreSQL database as it is
                                             (no re-parsing or re-embedding), then compare the counts
  eval beir <dir> [--split test|train] [--mode fulltext|vector|hybrid]
  eval hotpotqa <file.jsonl> [--limit N] [--offset N] [--model M] [--mode rag|research]
  eval regression [dir] [--model M] [--mode rag|research]        the regression set in eval/regression (five kinds of questions)
  eval docs [questions.json] [--corpus DIR] [--model M]
                                             the docs development set (eval/docs-dev) over $DOSSIER_DATA_DIR/docs-dev
  eval research-dev [questions.json] [--mode research|rag] [--corpus DIR]
                                             multi-part questions (eval/research-dev): share of sub-questions
                                             answered with cited evidence
  eval context <questions.json|.jsonl> [--answers FILE] [--corpus DIR] [--limit N] [--offset N]
                                             what a model is shown: a scripted model searches once with each
                                             question; is the gold answer in the text shown, in the chunks found?
  python <file|-> [--timeout-ms N] [--memory-mb N]
                                             run Python 3 (standard library) in the sandbox research mode uses:
                                             no files, network or JavaScript; - reads the code from stdin
  web search <query> [--limit N]             search the web ($DOSSIER_WEB_SEARCH: searxng, tavily, brave or serper)
  web fetch <url> [--max-bytes N] [--timeout-ms N]
                                             a page's main text as Markdown; private, loopback, link-local and
                                             metadata addresses are refused unless in $DOSSIER_WEB_ALLOW

Options for every command:
  --db FILE     index file (default ./dossier.db, or $DOSSIER_DB)
  --json        one JSON object on stdout
  --embedder S  offline (default, or $DOSSIER_EMBEDDER), openai:<model>, ollama:<model>, openai-compatible:<model>
  --reranker S  reorder the fused candidates of every search (search, ask, serve, mcp, eval) with a
                reranking model: cohere:<model> (COHERE_API_KEY, COHERE_BASE_URL) or cohere-compatible:<model>
                (DOSSIER_RERANKER_BASE_URL, e.g. vLLM); default $DOSSIER_RERANKER, else none. Offline there is
                no reranker: without one the fused order stands
  -h, --help    this help
  --version     the version
`;

type Command = (argv: string[], context: CommandContext) => Promise<number>;

// Each command loads its own module (and, through it, only what it needs), so start-up stays small.
const COMMANDS: Record<string, () => Promise<Command>> = {
  ingest: async () => (await import('./commands/ingest.ts')).ingest,
  list: async () => (await import('./commands/documents.ts')).list,
  search: async () => (await import('./commands/search.ts')).search,
  ask: async () => (await import('./commands/ask.ts')).ask,
  replay: async () => (await import('./commands/ask.ts')).replay,
  approve: async () => (await import('./commands/ask.ts')).approve,
  serve: async () => (await import('./commands/serve.ts')).serve,
  worker: async () => (await import('./commands/serve.ts')).worker,
  users: async () => (await import('./commands/serve.ts')).users,
  keys: async () => (await import('./commands/serve.ts')).keys,
  collections: async () => (await import('./commands/serve.ts')).collections,
  stats: async () => (await import('./commands/documents.ts')).stats,
  delete: async () => (await import('./commands/documents.ts')).remove,
  migrate: async () => (await import('./commands/documents.ts')).migrate,
  eval: async () => (await import('./commands/eval.ts')).evaluate,
  web: async () => (await import('./commands/web.ts')).web,
  python: async () => (await import('./commands/python.ts')).python,
  mcp: async () => (await import('./commands/mcp.ts')).mcp,
};

export function version(): string {
  return VERSION;
}

/** The whole CLI: parses `argv`, runs the command against `io`, returns the exit code (0, 1 failure, 2 usage). */
export async function main(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  const [command, ...rest] = argv;
  const context = commandContext(io, rest.includes('--json'));
  if (command === '--version' || command === '-v') {
    io.stdout.write(`${version()}\n`);
    return 0;
  }
  if (!command || command === '--help' || command === '-h' || command === 'help' || rest.includes('--help') || rest.includes('-h')) {
    io.stdout.write(HELP);
    return 0;
  }
  try {
    const load = COMMANDS[command];
    if (!load) throw new UsageError(`unknown command "${command}" (commands: ${Object.keys(COMMANDS).join(', ')})`);
    return await (await load())(rest, context);
  } catch (error) {
    return reportFailure(error, context);
  }
}
