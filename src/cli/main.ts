import { commandContext, processIo, reportFailure, UsageError, type CliIo, type CommandContext } from './io.ts';
import { VERSION } from '../version.ts';

type Command = (argv: string[], context: CommandContext) => Promise<number>;

// Each command loads its own module (and, through it, only what it needs), so start-up stays small.
const COMMANDS: Record<string, () => Promise<Command>> = {
  ingest: async () => (await import('./commands/ingest.ts')).ingest,
  list: async () => (await import('./commands/documents.ts')).list,
  search: async () => (await import('./commands/search.ts')).search,
  graph: async () => (await import('./commands/graph.ts')).graph,
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

const unknownCommand = (name: string) =>
  new UsageError(`unknown command "${name}" (commands: ${Object.keys(COMMANDS).join(', ')}; dossier --help lists them)`);

/** The global help, or the help of the command (or group) the leading words name; `--json` prints it as JSON. */
async function help(words: readonly string[], context: CommandContext): Promise<number> {
  const { globalHelp, globalHelpJson, helpFor } = await import('./help.ts');
  const named = words.filter((word) => !word.startsWith('-'));
  if (named.length === 0) {
    if (context.json) context.printJson(globalHelpJson());
    else context.io.stdout.write(globalHelp(context.out));
    return 0;
  }
  const found = helpFor(named, context.out);
  if (!found) return reportFailure(unknownCommand(named[0]), context);
  if (context.json) context.printJson(found.json);
  else context.io.stdout.write(found.text);
  return 0;
}

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
    return help(command === 'help' ? rest : argv, context);
  }
  try {
    const load = COMMANDS[command];
    if (!load) throw unknownCommand(command);
    return await (await load())(rest, context);
  } catch (error) {
    return reportFailure(error, context);
  }
}
