import { intOption, listOption, parse } from '../args.ts';
import { UsageError, type CommandContext } from '../io.ts';
import { openIndex, withIndex } from './open.ts';

export async function list(argv: string[], context: CommandContext): Promise<number> {
  const { values } = parse(argv, { collection: { type: 'string', short: 'c', multiple: true }, limit: { type: 'string' }, offset: { type: 'string' } });
  const limit = intOption(values, 'limit', 1_000_000, 1, 1_000_000);
  const offset = intOption(values, 'offset', 0, 0, 1_000_000_000);
  return withIndex(values, context, 'read', async (dossier) => {
    const documents = await dossier.listDocuments({ collections: listOption(values, 'collection'), limit, offset });
    if (context.json) context.printJson({ documents });
    else {
      if (documents.length === 0) context.print('no documents');
      for (const d of documents) {
        const updated = `updated ${d.updatedAt.slice(0, 16).replace('T', ' ')} UTC`; // stored as ISO time in UTC
        context.print(`${String(d.id).padStart(6)}  ${context.out.bold(d.title)} ${context.out.dim(`${d.collection} · ${d.mediaType} · ${d.chunks} chunks · ${updated} · ${d.source}`)}`);
      }
    }
    return 0;
  });
}

export async function stats(argv: string[], context: CommandContext): Promise<number> {
  const { values } = parse(argv, {});
  return withIndex(values, context, 'read', async (dossier) => {
    const result = await dossier.stats();
    const collections = await dossier.collections();
    if (context.json) context.printJson({ ...result, collectionNames: collections.map((c) => c.name) });
    else {
      context.print(`documents   ${result.documents}\nchunks      ${result.chunks}\ncollections ${result.collections}\nbytes       ${result.bytes}`);
      context.print(`embedder    ${result.embedder ? `${result.embedder.embedderId} (${result.embedder.dimensions} dims)` : 'none yet'}`);
      for (const collection of collections) context.print(`  ${collection.name}: ${collection.documents} documents`);
    }
    return 0;
  });
}

export async function remove(argv: string[], context: CommandContext): Promise<number> {
  const { values, positionals } = parse(argv, {}, { min: 1, max: Infinity, missing: 'delete needs at least one document id (see list or search)' });
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

/** Opening an index for writing applies its pending migrations; this command does only that. */
export async function migrate(argv: string[], context: CommandContext): Promise<number> {
  const { values } = parse(argv, {});
  const dossier = await openIndex(values, context, 'write');
  const identity = await dossier.store.identity();
  await dossier.close();
  const { SCHEMA_VERSION } = await import('../../store/sqlite/schema.ts');
  if (context.json) context.printJson({ schemaVersion: SCHEMA_VERSION, index: identity.id });
  else context.print(`index is at schema version ${SCHEMA_VERSION}`);
  return 0;
}
