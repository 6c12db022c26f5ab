/**
 * Every command of the CLI, with its arguments, options and examples: the one source that the
 * global help, each command's `--help` and the option parsing of every command are made from
 * (cli/help.ts renders, cli/args.ts parses), so a command cannot take an option its help does not
 * name. Data only: no imports, so that loading it costs nothing at start-up.
 */
export interface OptionSpec {
  /** The long name, without dashes (`max-steps`). */
  name: string;
  short?: string;
  type: 'string' | 'boolean';
  /** Repeatable: each use adds a value. */
  multiple?: boolean;
  /** The command needs it (usage shows it without brackets). */
  required?: boolean;
  /** The placeholder of its value in usage lines (`N`, `FILE`, `rag|research`). */
  value?: string;
  /** One line: what it does. */
  help: string;
  /** What applies when it is not given (shown as "default: …"). */
  default?: string;
}

export interface CommandSpec {
  /** `ask`, or `eval docs` for a subcommand. */
  name: string;
  /** Positional arguments as usage shows them (`<question>`, `<path…>`). */
  args?: string;
  /** One line: what the command does. */
  summary: string;
  /** More about it, shown by its own `--help` only. */
  details?: string;
  options: OptionSpec[];
  /** Other ways to call it, each with what it does differently (in the global help too). */
  forms?: { usage: string; summary: string }[];
  /** Whole command lines, at least one. */
  examples: string[];
}

/** The options every command takes. */
export const GLOBAL_OPTIONS: OptionSpec[] = [
  {
    name: 'db',
    type: 'string',
    value: 'FILE',
    help: 'the index: a SQLite file or a postgres:// URL',
    default: './dossier.db, or $DOSSIER_DB',
  },
  { name: 'json', type: 'boolean', help: 'one JSON object on stdout (with --help: this help as JSON)' },
  {
    name: 'embedder',
    type: 'string',
    value: 'S',
    help: 'offline, openai:<model>, ollama:<model>, openai-compatible:<model>',
    default: 'offline, or $DOSSIER_EMBEDDER',
  },
  {
    name: 'reranker',
    type: 'string',
    value: 'S',
    help:
      'reorder the fused candidates of every search (search, ask, serve, mcp, eval) with a reranking model: cohere:<model> ' +
      '(COHERE_API_KEY, COHERE_BASE_URL) or cohere-compatible:<model> (DOSSIER_RERANKER_BASE_URL, e.g. vLLM). Offline there is ' +
      'no reranker: without one the fused order stands',
    default: '$DOSSIER_RERANKER, else none',
  },
  { name: 'help', short: 'h', type: 'boolean', help: 'this help; after a command, that command’s usage, options and examples' },
];

const collection = (help: string, multiple = true): OptionSpec => ({
  name: 'collection',
  short: 'c',
  type: 'string',
  value: 'NAME',
  ...(multiple ? { multiple: true } : {}),
  help,
  ...(multiple ? { default: 'every collection' } : { default: 'default' }),
});
const model = (help: string): OptionSpec => ({
  name: 'model',
  type: 'string',
  value: 'M',
  help,
  default: 'offline, or $DOSSIER_MODEL',
});
const agentMode: OptionSpec = {
  name: 'mode',
  short: 'm',
  type: 'string',
  value: 'rag|research',
  help: 'rag: one agent loop; research: a plan of sub-questions answered by nested agents',
  default: 'rag',
};
const critiqueModel: OptionSpec = {
  name: 'critique-model',
  type: 'string',
  value: 'M',
  help: 'research mode: the model that critiques the claims (offline: the word-match critique)',
  default: '--model',
};
const searchMode = (help: string): OptionSpec => ({
  name: 'mode',
  short: 'm',
  type: 'string',
  value: 'fulltext|vector|graph|hybrid',
  help,
  default: 'hybrid',
});
const config: OptionSpec = {
  name: 'config',
  type: 'string',
  value: 'FILE',
  help: 'tool permissions and approval rules',
  default: './dossier.config.json, or $DOSSIER_CONFIG',
};
const graphOption: OptionSpec = {
  name: 'graph',
  type: 'boolean',
  help: 'build the knowledge graph of the corpus first, so every search fuses it in',
};
const corpus = (what: string): OptionSpec => ({ name: 'corpus', type: 'string', value: 'DIR', help: `the corpus root: ${what}` });
const limit = (help: string, fallback: string): OptionSpec => ({ name: 'limit', type: 'string', value: 'N', help, default: fallback });
const offset = (help: string): OptionSpec => ({ name: 'offset', type: 'string', value: 'N', help, default: '0' });

export const COMMAND_SPECS: CommandSpec[] = [
  {
    name: 'ingest',
    args: '<path…>',
    summary:
      'ingest files, folders (recursively) and globs; --sync also removes documents whose files are gone; with a real --model, ' +
      'it writes the document descriptions; images and scanned PDF pages are read by OCR unless --no-ocr',
    details:
      'Every file either ingests or is reported with a one-line reason; a batch never stops at one bad file. A file whose content ' +
      'is unchanged is skipped.',
    options: [
      collection('the collection the documents go into', false),
      {
        name: 'metadata',
        type: 'string',
        value: 'k=v',
        multiple: true,
        help: 'metadata for every document (numbers and true/false become JSON values)',
      },
      { name: 'metadata-json', type: 'string', value: 'JSON', help: 'metadata as a JSON object; --metadata k=v wins for the same key' },
      { name: 'sync', type: 'boolean', help: 'also remove the documents of the collection whose files are gone' },
      model('a real model writes each document’s description; offline keeps the extractive one'),
      { name: 'no-ocr', type: 'boolean', help: 'do not read images and scanned PDF pages by OCR' },
      { name: 'strict', type: 'boolean', help: 'exit 1 when any file failed', default: 'exit 0 unless nothing was ingested' },
      {
        name: 'queue',
        type: 'boolean',
        help: 'enqueue the files as one job for "dossier worker" instead (needs --db postgres://…)',
      },
    ],
    forms: [
      {
        usage: 'ingest <path…> --queue --db postgres://…',
        summary: 'enqueue the files as one job for "dossier worker" (paths on a file system the workers share; prints {job} with --json)',
      },
    ],
    examples: [
      'dossier ingest docs/ --db docs.db',
      'dossier ingest ~/papers "notes/**/*.md" --collection research --metadata year=2024',
      'dossier ingest ~/papers --collection research --sync --strict',
    ],
  },
  {
    name: 'worker',
    summary: 'claim and ingest queued jobs (PostgreSQL) until SIGINT/SIGTERM',
    details: 'A job in hand when the worker stops goes back to the queue. One line per job on stderr; --json prints a summary at the end.',
    options: [{ name: 'concurrency', type: 'string', value: 'N', help: 'jobs ingested at once (1 to 64)', default: '1' }],
    examples: ['dossier worker --db postgres://localhost/dossier --concurrency 4'],
  },
  {
    name: 'list',
    summary: 'the documents in the index',
    options: [
      collection('only the documents of this collection (repeatable)'),
      limit('at most N documents', 'all'),
      offset('skip the first N documents'),
    ],
    examples: ['dossier list --collection research --json'],
  },
  {
    name: 'search',
    args: '<query>',
    summary: 'the chunks that match a query, best first',
    options: [
      searchMode(
        'full text (BM25), vectors, the knowledge graph (Personalized PageRank), or all fused by RRF (the graph where one exists)',
      ),
      { name: 'k', type: 'string', value: 'N', help: 'how many hits (1 to 1000)', default: '10' },
      collection('search only this collection (repeatable)'),
      { name: 'filter', type: 'string', value: 'JSON', help: 'a metadata filter, e.g. {"metadata.year":{"$gte":2023}}' },
    ],
    examples: [
      'dossier search "side effects of statins" --mode hybrid --k 5',
      `dossier search budget --filter '{"metadata.year":{"$gte":2023}}' --json`,
    ],
  },
  {
    name: 'graph build',
    summary: 'build the knowledge graph of each collection: entities and relationships with provenance, and their communities',
    details:
      'One graph per collection. Only documents that are new or changed since the last build are extracted (--rebuild extracts them ' +
      'all again); building twice changes nothing. Once a collection has a graph, ingest keeps it up to date. A chunk the extractor ' +
      'could not read is listed, never fatal.',
    options: [
      collection('build the graph of this collection (repeatable)'),
      model('a real model extracts the entities and relationships; offline reads names, headings and code identifiers'),
      { name: 'rebuild', type: 'boolean', help: 'extract every document again' },
    ],
    examples: ['dossier graph build', 'dossier graph build --collection research --json'],
  },
  {
    name: 'graph entities',
    summary: 'the entities of the knowledge graph, most mentioned first',
    options: [
      { name: 'query', short: 'q', type: 'string', value: 'Q', help: 'only entities whose name or an alias holds these words' },
      collection('only this collection (repeatable)'),
      limit('at most N entities', '50'),
      offset('skip the first N entities'),
    ],
    examples: ['dossier graph entities --query "session middleware"', 'dossier graph entities --limit 20 --json'],
  },
  {
    name: 'graph show',
    args: '<entity>',
    summary: 'one entity (by id or name) with its relationships and the chunks that state them',
    options: [collection('look in this collection only (repeatable)'), limit('at most N relationships', '50')],
    examples: ['dossier graph show "Marit Halvorsen"', 'dossier graph show e3f1c2a9b7d04 --json'],
  },
  {
    name: 'graph communities',
    summary: 'the communities of the knowledge graph, coarsest level first, each with a summary read from its chunks',
    details:
      'Communities are detected by Louvain in levels (0 is the coarsest; each level splits the large communities above it). ' +
      'Offline a summary is sentences of the chunks, cited by chunk id; `graph build --model M` has the model write them. A ' +
      'community detected before the documents changed is marked stale.',
    options: [
      collection('only this collection (repeatable)'),
      { name: 'level', type: 'string', value: 'N', help: 'only this level' },
      limit('at most N communities', 'all'),
    ],
    examples: ['dossier graph communities --level 0', 'dossier graph communities --collection research --json'],
  },
  {
    name: 'ask',
    args: '<question>',
    summary: 'answer with cited sources (offline model by default)',
    details:
      'Research mode plans sub-questions, answers them with nested agents, critiques the claims and writes a cited report. The ' +
      'exit code is non-zero when the run ends in error or is aborted.',
    options: [
      agentMode,
      model('the model that answers: offline, openai:<model>, anthropic:<model>, ollama:<model>, openai-compatible:<model>'),
      { name: 'max-steps', type: 'string', value: 'N', help: 'model turns at most (1 to 100)', default: '10; research 15' },
      { name: 'timeout', type: 'string', value: 'SECONDS', help: 'stop the run after this long', default: 'none' },
      { name: 'trace', type: 'string', value: 'FILE', help: 'write every event of the run to FILE (JSON lines), for dossier replay' },
      collection('answer from this collection only (repeatable)'),
      { name: 'tools', type: 'string', value: 'DIR', help: 'load user tools from DIR' },
      { name: 'reasoning-model', type: 'string', value: 'M', help: 'research mode: the model of the reasoning tool', default: '--model' },
      critiqueModel,
      config,
      {
        name: 'context-tokens',
        type: 'string',
        value: 'N',
        help: 'tool results the transcript holds before older ones are compacted to one line each (200 or more)',
        default: '8000',
      },
    ],
    examples: [
      'dossier ask "Who leads the team that built the Tern-4?" --db demo.db',
      'dossier ask "…" --model openai:gpt-4o-mini --trace run.jsonl',
      'dossier ask "Who founded Halvorsen Instruments, and when did it move to Trondheim?" --mode research',
    ],
  },
  {
    name: 'approve',
    args: '<runId>',
    summary: 'release (or deny) the answer of a run paused for approval',
    options: [
      { name: 'deny', type: 'boolean', help: 'deny the answer instead of releasing it' },
      { name: 'by', type: 'string', value: 'NAME', help: 'who decides', default: '$USER' },
      { name: 'note', type: 'string', value: 'TEXT', help: 'a note kept with the decision' },
    ],
    examples: ['dossier approve 3f2c… --by alice', 'dossier approve 3f2c… --deny --note "cites a draft"'],
  },
  {
    name: 'replay',
    args: '<trace.jsonl>',
    summary: 'rerun a recorded run from its recorded model outputs',
    details: 'Exits 1 when the answer differs from the recorded one, or when the index is another.',
    options: [],
    examples: ['dossier replay run.jsonl'],
  },
  {
    name: 'serve',
    summary:
      'the HTTP API (/docs, /openapi.json), MCP at /mcp and the web page at /; off loopback it needs --auth keys; on PostgreSQL, ' +
      'uploads are queued and N in-process workers (default 1, 0 = none) ingest them',
    options: [
      { name: 'host', type: 'string', value: 'H', help: 'the address to listen on', default: '127.0.0.1' },
      { name: 'port', type: 'string', value: 'P', help: 'the port (0 picks a free one)', default: '8787' },
      {
        name: 'auth',
        type: 'string',
        value: 'none|keys',
        help: 'keys: every request needs an API key (required off loopback)',
        default: 'none',
      },
      config,
      model('the model of /v1/ask, /v1/chat and MCP'),
      { name: 'workers', type: 'string', value: 'N', help: 'PostgreSQL: in-process queue workers (0 to 64)', default: '1' },
    ],
    examples: ['dossier serve --port 8787', 'dossier serve --host 0.0.0.0 --auth keys --db postgres://localhost/dossier'],
  },
  {
    name: 'mcp',
    summary: 'an MCP server over stdio (tools: search, ask, research, get_content, list_documents; documents as resources)',
    options: [collection('serve only this collection (repeatable)'), model('the model of the ask and research tools'), config],
    examples: ['dossier mcp --collection research --db papers.db'],
  },
  {
    name: 'users create',
    args: '<name>',
    summary: 'a server user and its first API key',
    options: [{ name: 'admin', type: 'boolean', help: 'the user may manage users and every collection' }],
    examples: ['dossier users create alice --admin'],
  },
  {
    name: 'keys create',
    summary: 'another API key for a user',
    options: [{ name: 'user', type: 'string', value: 'NAME', required: true, help: 'the user the key is for' }],
    examples: ['dossier keys create --user alice'],
  },
  {
    name: 'collections grant',
    args: '<collection> <user>',
    summary: 'give a user a role on a collection',
    options: [{ name: 'role', type: 'string', value: 'reader|writer|owner', help: 'what the user may do', default: 'reader' }],
    examples: ['dossier collections grant research alice --role writer'],
  },
  {
    name: 'stats',
    summary: 'documents, chunks, collections, bytes, embedder',
    options: [],
    examples: ['dossier stats --json'],
  },
  {
    name: 'delete',
    args: '<documentId…>',
    summary: 'remove documents with their chunks and vectors',
    details: 'Exits 1 when an id was not found (the others are still deleted).',
    options: [],
    examples: ['dossier delete 42 43'],
  },
  {
    name: 'migrate',
    summary: 'upgrade an index made by an older Dossier',
    options: [
      { name: 'from', type: 'string', value: 'FILE.db', help: 'with --to: the index to move (read only, never written)' },
      { name: 'to', type: 'string', value: 'postgres://…', help: 'with --from: an empty PostgreSQL database to move it into' },
    ],
    forms: [
      {
        usage: 'migrate --from FILE.db --to postgres://…',
        summary: 'move an index into an empty PostgreSQL database as it is (no re-parsing or re-embedding), then compare the counts',
      },
    ],
    examples: ['dossier migrate --db old.db', 'dossier migrate --from old.db --to postgres://localhost/dossier'],
  },
  {
    name: 'eval beir',
    args: '<dir>',
    summary: 'retrieval on a BEIR dataset: nDCG@10, Recall@100, p50 latency',
    options: [
      { name: 'split', type: 'string', value: 'test|train', help: 'the qrels split', default: 'test' },
      searchMode('the search mode measured'),
    ],
    examples: ['dossier eval beir $DOSSIER_DATA_DIR/beir-scifact --split test --mode hybrid'],
  },
  {
    name: 'eval hotpotqa',
    args: '<file.jsonl>',
    summary: 'HotpotQA pooled: single-shot and agent recall, answer EM and F1',
    options: [
      limit('questions to ask', 'all'),
      offset('skip the first N questions'),
      model('the model that answers'),
      agentMode,
      graphOption,
      {
        name: 'graph-weight',
        type: 'string',
        value: 'W',
        help: "the graph list's weight in hybrid search (tune on development splits only)",
        default: '0.25',
      },
    ],
    examples: ['dossier eval hotpotqa $DOSSIER_DATA_DIR/hotpotqa/dev-500.jsonl --limit 100'],
  },
  {
    name: 'eval regression',
    args: '[dir]',
    summary: 'the regression set in eval/regression (five kinds of questions)',
    options: [model('the model that answers'), agentMode, graphOption],
    examples: ['dossier eval regression --json'],
  },
  {
    name: 'eval docs',
    args: '[questions.json]',
    summary: 'the docs development set (eval/docs-dev) over $DOSSIER_DATA_DIR/docs-dev',
    details:
      'Each corpus is indexed into its own collection of a temporary index; each question searches its own corpus. Reports ' +
      'answers and citations by kind and by corpus, and abstention precision and recall over the notFound questions.',
    options: [
      corpus('one folder per corpus the questions name (default $DOSSIER_DATA_DIR/docs-dev)'),
      model('the model that answers'),
      agentMode,
    ],
    examples: [
      'dossier eval docs --json',
      'dossier eval docs eval/docs-starlette-black/questions.json --corpus $DOSSIER_DATA_DIR/docs-dev',
    ],
  },
  {
    name: 'eval research-dev',
    args: '[questions.json]',
    summary: 'multi-part questions (eval/research-dev): share of sub-questions answered with cited evidence',
    options: [
      corpus('one folder per corpus the questions name (default $DOSSIER_DATA_DIR/docs-dev)'),
      model('the model that answers'),
      critiqueModel,
      { ...agentMode, default: 'research' },
    ],
    examples: ['dossier eval research-dev --json'],
  },
  {
    name: 'eval context',
    args: '<questions.json|.jsonl>',
    summary:
      'what a model is shown: a scripted model searches once with each question; is the gold answer in the text shown, in the ' +
      'chunks found?',
    options: [
      {
        name: 'answers',
        type: 'string',
        value: 'FILE',
        help: 'gold strings for JSON-lines rows without them ({"answers": {"<id>": […]}})',
      },
      corpus('one folder per corpus the questions name (default $DOSSIER_DATA_DIR/docs-dev)'),
      limit('questions to ask', 'all'),
      offset('skip the first N questions'),
    ],
    examples: ['dossier eval context eval/docs-dev/questions.json --db .bench/docs.db --json'],
  },
  {
    name: 'python',
    args: '<file|->',
    summary:
      'run Python 3 (standard library) in the sandbox research mode uses: no files, network or JavaScript; - reads the code from stdin',
    options: [
      { name: 'timeout-ms', type: 'string', value: 'N', help: 'stop the code after N milliseconds', default: '10000' },
      { name: 'memory-mb', type: 'string', value: 'N', help: 'memory the interpreter may use (64 to 2048)', default: '256' },
    ],
    examples: ["dossier python - --json <<< 'print(sum(range(10)))'"],
  },
  {
    name: 'web search',
    args: '<query>',
    summary: 'search the web ($DOSSIER_WEB_SEARCH: searxng, tavily, brave or serper)',
    options: [limit('results (1 to 50)', '5')],
    examples: ['dossier web search "pgvector hnsw" --limit 3'],
  },
  {
    name: 'web fetch',
    args: '<url>',
    summary:
      'a page’s main text as Markdown; private, loopback, link-local and metadata addresses are refused unless in $DOSSIER_WEB_ALLOW',
    options: [
      { name: 'max-bytes', type: 'string', value: 'N', help: 'read at most N bytes of the page', default: '2097152' },
      { name: 'timeout-ms', type: 'string', value: 'N', help: 'give up after N milliseconds', default: '15000' },
    ],
    examples: ['dossier web fetch https://example.org --json'],
  },
];

/** The spec of a command (`ask`, `eval docs`); throws on a name the table does not hold, which is a bug. */
export function commandSpec(name: string): CommandSpec {
  const spec = COMMAND_SPECS.find((s) => s.name === name);
  if (!spec) throw new Error(`no command spec "${name}"`);
  return spec;
}
