import { existsSync } from 'node:fs';
import { DossierError } from '../../errors/index.ts';
import type { Store } from '../../store/types.ts';
import { intOption, listOption, parse, stringOption } from '../args.ts';
import { progressBar, UsageError, type CommandContext } from '../io.ts';
import { openIndex, withIndex } from './open.ts';

export async function list(argv: string[], context: CommandContext): Promise<number> {
  const { values } = parse(argv, 'list');
  const limit = intOption(values, 'limit', 1_000_000, 1, 1_000_000);
  const offset = intOption(values, 'offset', 0, 0, 1_000_000_000);
  return withIndex(values, context, 'read', async (dossier) => {
    const documents = await dossier.listDocuments({ collections: listOption(values, 'collection'), limit, offset });
    if (context.json) context.printJson({ documents });
    else {
      if (documents.length === 0) context.print('no documents');
      for (const d of documents) {
        const updated = `updated ${d.updatedAt.slice(0, 16).replace('T', ' ')} UTC`; // stored as ISO time in UTC
        context.print(
          `${String(d.id).padStart(6)}  ${context.out.bold(d.title)} ${context.out.dim(`${d.collection} · ${d.mediaType} · ${d.chunks} chunks · ${updated} · ${d.source}`)}`,
        );
      }
    }
    return 0;
  });
}

export async function stats(argv: string[], context: CommandContext): Promise<number> {
  const { values } = parse(argv, 'stats');
  return withIndex(values, context, 'read', async (dossier) => {
    const result = await dossier.stats();
    const collections = await dossier.collections();
    if (context.json) context.printJson({ ...result, collectionNames: collections.map((c) => c.name) });
    else {
      context.print(
        `documents   ${result.documents}\nchunks      ${result.chunks}\ncollections ${result.collections}\nbytes       ${result.bytes}`,
      );
      context.print(`embedder    ${result.embedder ? `${result.embedder.embedderId} (${result.embedder.dimensions} dims)` : 'none yet'}`);
      for (const collection of collections) context.print(`  ${collection.name}: ${collection.documents} documents`);
    }
    return 0;
  });
}

export async function remove(argv: string[], context: CommandContext): Promise<number> {
  const { values, positionals } = parse(argv, 'delete', {
    min: 1,
    max: Infinity,
    missing: 'delete needs at least one document id (see list or search)',
  });
  const ids = positionals.map((raw) => {
    const id = Number(raw);
    if (!/^\d+$/.test(raw) || !Number.isSafeInteger(id) || id <= 0) throw new UsageError(`not a document id: "${raw}"`);
    return id;
  });
  return withIndex(values, context, 'write', async (dossier) => {
    const deleted: number[] = [];
    const notFound: number[] = [];
    for (const id of ids) ((await dossier.deleteDocument(id)) ? deleted : notFound).push(id);
    if (context.json) context.printJson({ deleted, notFound });
    else {
      if (deleted.length) context.print(`deleted ${deleted.join(', ')}`);
      if (notFound.length) context.print(context.out.red(`not found: ${notFound.join(', ')}`));
    }
    return notFound.length ? 1 : 0;
  });
}

/**
 * Without --from/--to: opening an index for writing applies its pending migrations; this does only that.
 * With them: the whole index moves to another store (migrateAcross).
 */
export async function migrate(argv: string[], context: CommandContext): Promise<number> {
  const { values } = parse(argv, 'migrate');
  const from = stringOption(values, 'from');
  const to = stringOption(values, 'to');
  if (from !== undefined || to !== undefined) {
    if (!from || !to) throw new UsageError('migrate --from FILE.db needs --to postgres://… (and --to needs --from)');
    if (values.db !== undefined) throw new UsageError('migrate takes --db (upgrade in place) or --from/--to (move an index), not both');
    return migrateAcross(from, to, context);
  }
  const dossier = await openIndex(values, context, 'write');
  const identity = await dossier.store.identity();
  await dossier.close();
  const { SCHEMA_VERSION } = await import('../../store/sqlite/schema.ts');
  if (context.json) context.printJson({ schemaVersion: SCHEMA_VERSION, index: identity.id });
  else context.print(`index is at schema version ${SCHEMA_VERSION}`);
  return 0;
}

const isPostgres = (db: string) => /^postgres(ql)?:\/\//.test(db);

/** The store behind a --from/--to value (postgres://… or a SQLite file), opened directly: no tokenizer or embedder is needed to copy. */
async function openStore(db: string, readonly: boolean): Promise<Store & { label?: string }> {
  if (isPostgres(db)) {
    const { PgStore } = await import('../../store/postgres/pg-store.ts');
    return PgStore.open(db, { readonly });
  }
  const { SqliteStore } = await import('../../store/sqlite/sqlite-store.ts');
  return new SqliteStore(db, { readonly });
}

/**
 * `migrate --from FILE.db --to postgres://…`: copies every document with its chunks, index terms and
 * vectors as they are (nothing parsed or embedded again), then compares documents and chunks per
 * collection between the two and fails on any difference. Refuses a target that holds documents.
 */
async function migrateAcross(from: string, to: string, context: CommandContext): Promise<number> {
  if (!isPostgres(from) && !existsSync(from)) throw new DossierError('not-found', `--from ${from}: no such file`);
  if (from === to) throw new UsageError('--from and --to name the same index');
  const { assertEmptyTarget, copyIndex, collectionCounts, countsDiffer } = await import('../../store/copy.ts');
  const server = await import('./server-tables.ts');
  // The server's tables go along into PostgreSQL (the server keeps them there too); anywhere else they stay.
  const serverRows = isPostgres(from) ? {} : server.sqliteServerRows(from);
  const copyServer = Object.values(serverRows).some((n) => n > 0) && isPostgres(to);
  // Read-only: the source is never written, not even a schema upgrade (an old file needs `migrate --db` first).
  const source = await openStore(from, true);
  try {
    const target = await openStore(to, false);
    try {
      await assertEmptyTarget(target); // first, so a second run names the index, not the server tables
      if (copyServer) {
        const held = Object.values(await server.pgServerRows(to)).reduce((sum, n) => sum + n, 0);
        if (held > 0)
          throw new DossierError('bad-input', `the target's server tables already hold ${held} rows; migrate into an empty database`);
      }
      const bar = await progressBar(context.io, 'migrate', { unit: 'documents' });
      let report;
      try {
        report = await copyIndex(source, target, {
          onProgress: (done, total, path) => bar.update(done, total, path),
          signal: context.io.signal,
        });
      } finally {
        bar.stop();
      }
      const sourceCounts = await collectionCounts(source);
      const difference = countsDiffer(sourceCounts, await collectionCounts(target));
      if (difference)
        throw new DossierError('store-failed', `migrate copied ${report.documents} documents but the counts differ: ${difference}`);
      const serverTables: Record<string, number> | string = copyServer
        ? await server.copyServerTables(from, to)
        : Object.values(serverRows).some((n) => n > 0)
          ? `skipped: the server's tables (users, keys, runs, conversations, jobs) move only into PostgreSQL; they stay in ${from}`
          : 'none in the source';
      const result = {
        from: source.label ?? from, // a connection string without its password
        to: target.label ?? to,
        documents: report.documents,
        chunks: report.chunks,
        vectors: report.vectors,
        collections: report.collections,
        verified: true,
        perCollection: sourceCounts,
        sourceIndex: report.source.id,
        targetIndex: report.target.id,
        ids: 'assigned by the target: document and chunk ids differ, so citations and traces of the source do not carry over',
        serverTables,
      };
      if (context.json) context.printJson(result);
      else {
        context.print(
          `${context.out.green('migrated')} ${report.documents} documents, ${report.chunks} chunks, ${report.vectors} vectors in ${report.collections} collections from ${result.from} to ${result.to}`,
        );
        context.print(`verified: documents and chunks per collection are the same in both`);
        context.print(`ids: ${result.ids} (target index ${report.target.id})`);
        context.print(
          `server tables: ${
            typeof serverTables === 'string'
              ? serverTables
              : `copied and verified (${Object.entries(serverTables)
                  .map(([t, n]) => `${t} ${n}`)
                  .join(', ')})`
          }`,
        );
      }
      return 0;
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}
