import { configFromEnv } from '../../config/index.ts';
import { loadPolicy } from '../../config/policy.ts';
import { DossierError } from '../../errors/index.ts';
import { intOption, parse, stringOption, type Values } from '../args.ts';
import { UsageError, type CommandContext } from '../io.ts';
import { openIndex } from './open.ts';

function dbOf(values: Values, context: CommandContext): string {
  return stringOption(values, 'db') ?? configFromEnv(context.io.env).db;
}

/** `dossier serve [--host H] [--port P] [--auth none|keys] [--config FILE] [--workers N]`: the HTTP API, MCP and the web page; on PostgreSQL, N queue workers (default 1). */
export async function serve(argv: string[], context: CommandContext): Promise<number> {
  const { values } = parse(argv, 'serve');
  const auth = stringOption(values, 'auth') ?? 'none';
  if (auth !== 'none' && auth !== 'keys') throw new UsageError(`--auth must be none or keys, got "${auth}"`);
  const port = intOption(values, 'port', 8787, 0, 65535);
  const workers = intOption(values, 'workers', 1, 0, 64);
  const db = dbOf(values, context);
  const policy = loadPolicy(stringOption(values, 'config') ?? configFromEnv(context.io.env).configFile);
  const dossier = await openIndex(values, context, 'write');
  const { startServer, sideDir } = await import('../../server/index.ts');
  const { optionalRouteGroups } = await import('../../server/groups.ts');
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    const uploadsDir = context.io.env.DOSSIER_UPLOADS_DIR || sideDir(db, 'uploads');
    server = await startServer({
      dossier,
      db,
      host: stringOption(values, 'host'),
      port,
      auth,
      uploadsDir,
      ask: { policy, runsDir: configFromEnv(context.io.env).runsDir ?? sideDir(db, 'runs'), model: stringOption(values, 'model') },
      extra: await optionalRouteGroups(),
      workers,
    });
  } catch (error) {
    await dossier.close();
    if ((error as { code?: string }).code === 'EADDRINUSE')
      throw new DossierError('config', `port ${port} is in use; pick another with --port`);
    throw error;
  }
  context.print(`listening on ${server.url}`);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    context.io.signal?.addEventListener('abort', stop, { once: true });
    if (!context.io.signal) {
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    }
  });
  await server.close();
  await dossier.close();
  return 0;
}

/** `dossier users create <name> [--admin]` → `{userId, apiKey}`. */
export async function users(argv: string[], context: CommandContext): Promise<number> {
  const { values, positionals } = parse(argv, 'users create', {
    min: 2,
    max: 2,
    what: 'users create <name>',
    missing: 'usage: dossier users create <name> [--admin]',
  });
  if (positionals[0] !== 'create') throw new UsageError(`unknown users command "${positionals[0]}" (users create <name>)`);
  return withState(values, context, async (state) => {
    const user = await state.createUser(positionals[1], { admin: values.admin === true });
    const { apiKey } = await state.createKey(user.id);
    if (context.json) context.printJson({ userId: user.id, apiKey });
    else context.print(`user ${user.name} (${user.id})${user.admin ? ', admin' : ''}\napi key (shown once): ${apiKey}`);
  });
}

/** `dossier keys create --user NAME` → `{apiKey}`. */
export async function keys(argv: string[], context: CommandContext): Promise<number> {
  const { values, positionals } = parse(argv, 'keys create', {
    min: 1,
    max: 1,
    what: 'keys create',
    missing: 'usage: dossier keys create --user NAME',
  });
  if (positionals[0] !== 'create') throw new UsageError(`unknown keys command "${positionals[0]}" (keys create --user NAME)`);
  const name = stringOption(values, 'user');
  if (!name) throw new UsageError('keys create needs --user NAME');
  return withState(values, context, async (state) => {
    const user = await state.userByName(name);
    if (!user) throw new DossierError('not-found', `no user "${name}" (dossier users create ${name})`);
    const { apiKey } = await state.createKey(user.id);
    if (context.json) context.printJson({ apiKey });
    else context.print(`api key for ${name} (shown once): ${apiKey}`);
  });
}

/** `dossier collections grant <collection> <user> --role reader|writer|owner` → `{collection, user, role}`. */
export async function collections(argv: string[], context: CommandContext): Promise<number> {
  const { values, positionals } = parse(argv, 'collections grant', {
    min: 3,
    max: 3,
    what: 'collections grant <collection> <user>',
    missing: 'usage: dossier collections grant <collection> <user> --role reader|writer|owner',
  });
  if (positionals[0] !== 'grant')
    throw new UsageError(`unknown collections command "${positionals[0]}" (collections grant <collection> <user> --role R)`);
  const role = stringOption(values, 'role') ?? 'reader';
  if (!['reader', 'writer', 'owner'].includes(role)) throw new UsageError(`--role must be reader, writer or owner, got "${role}"`);
  const [, collection, name] = positionals;
  const { assertCollectionName } = await import('../../dossier.ts');
  assertCollectionName(collection);
  return withState(values, context, async (state) => {
    const user = await state.userByName(name);
    if (!user) throw new DossierError('not-found', `no user "${name}" (dossier users create ${name})`);
    await state.grant(collection, user.id, role as 'reader');
    if (context.json) context.printJson({ collection, user: name, role });
    else context.print(`${name} is ${role} of ${collection}`);
  });
}

async function withState(
  values: Values,
  context: CommandContext,
  use: (state: import('../../server/state/index.ts').ServerState) => Promise<void>,
): Promise<number> {
  // The index is opened for writing first: it creates or migrates the file the server tables live in.
  const dossier = await openIndex(values, context, 'write');
  await dossier.close();
  const { openServerState } = await import('../../server/state/index.ts');
  const state = await openServerState(dbOf(values, context));
  try {
    await use(state);
  } finally {
    await state.close();
  }
  return 0;
}

/**
 * `dossier worker [--concurrency N]`: claims ingestion jobs from the PostgreSQL queue and ingests them
 * until SIGINT/SIGTERM (a job in hand is released back to the queue); one line per job on stderr,
 * `--json` a summary at the end.
 */
export async function worker(argv: string[], context: CommandContext): Promise<number> {
  const { values } = parse(argv, 'worker');
  const concurrency = intOption(values, 'concurrency', 1, 1, 64);
  const db = dbOf(values, context);
  const { isPostgresUrl, openServerState } = await import('../../server/state/index.ts');
  if (!isPostgresUrl(db))
    throw new UsageError(
      'dossier worker needs a PostgreSQL index (--db postgres://…): the job queue lives there; an SQLite index ingests in the server process',
    );
  const dossier = await openIndex(values, context, 'write');
  const state = await openServerState(db).catch(async (error: unknown) => {
    await dossier.close();
    throw error;
  });
  const { runWorker } = await import('../../server/queue.ts');
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  context.io.signal?.addEventListener('abort', onSignal, { once: true });
  if (!context.io.signal) {
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  }
  const { io, err } = context;
  io.stderr.write(`dossier worker: waiting for jobs (concurrency ${concurrency})\n`);
  let summary;
  try {
    summary = await runWorker({
      dossier,
      queue: state.queue()!,
      concurrency,
      signal: stop.signal,
      onJob: ({ job, outcome, detail }) => {
        const colour = outcome === 'finished' ? err.green : outcome === 'failed' ? err.red : err.yellow;
        io.stderr.write(`dossier worker: job ${job.id} (${job.collection}, attempt ${job.attempts}) ${colour(outcome)}: ${detail}\n`);
      },
    });
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await state.close();
    await dossier.close();
  }
  if (context.json) context.printJson(summary);
  else io.stderr.write(`dossier worker: stopped; ${summary.finished} finished, ${summary.failed} failed, ${summary.released} released\n`);
  return 0;
}
