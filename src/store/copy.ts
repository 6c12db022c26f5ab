import { DossierError, oneLine } from '../errors/index.ts';
import type { IndexIdentity, Store } from './types.ts';

/**
 * Moving a whole index from one store to another (`dossier migrate --from … --to …`): every document
 * with its chunks, index terms and vectors as they are, through the stores' export/import
 * capabilities; nothing is parsed or embedded again. Ids are assigned by the target.
 */
export interface CopyReport {
  documents: number;
  chunks: number;
  vectors: number;
  collections: number;
  source: IndexIdentity;
  target: IndexIdentity;
}

export interface CollectionCounts {
  name: string;
  documents: number;
  chunks: number;
}

const ALL = { collections: '*' } as const;

export async function copyIndex(
  source: Store,
  target: Store,
  options: { onProgress?: (done: number, total: number, source: string) => void; signal?: AbortSignal } = {},
): Promise<CopyReport> {
  if (!source.exportIndex || !source.exportDocuments) throw new DossierError('config', 'the source store cannot export its documents');
  if (!target.importIndex || !target.importDocument) throw new DossierError('config', 'the target store cannot import documents');
  await assertEmptyTarget(target);
  const exported = await source.exportIndex();
  await target.importIndex(exported);
  const total = exported.identity.documents;
  let documents = 0;
  let chunks = 0;
  let vectors = 0;
  options.onProgress?.(0, total, '');
  try {
    for await (const document of source.exportDocuments()) {
      if (options.signal?.aborted) throw new DossierError('aborted', 'interrupted');
      await target.importDocument(document);
      documents++;
      chunks += document.chunks.length;
      vectors += document.vectors.length;
      options.onProgress?.(documents, total, document.document.source);
    }
    await target.finishImport?.(exported);
  } catch (error) {
    // Said plainly: the target is not rolled back document by document, and a second run refuses it.
    throw new DossierError(
      DossierError.isInstance(error) ? error.code : 'store-failed',
      `migrate stopped after ${documents} of ${total} documents (${oneLine(error)}); the target now holds part of the index: empty it or use a fresh database, then run again`,
      { cause: error },
    );
  }
  return {
    documents,
    chunks,
    vectors,
    collections: (await target.collections(ALL)).length,
    source: exported.identity,
    target: await target.identity(),
  };
}

/** Only into an empty index: merging two would mix their BM25 statistics and collide on sources. */
export async function assertEmptyTarget(target: Store): Promise<void> {
  const { documents } = await target.identity();
  if (documents > 0) throw new DossierError('bad-input', `the target already holds ${documents} documents; migrate into an empty database`);
}

/** Documents and chunks per collection, by name, to compare a source and its copy. */
export async function collectionCounts(store: Store): Promise<CollectionCounts[]> {
  const out: CollectionCounts[] = [];
  for (const collection of await store.collections(ALL)) {
    const stats = await store.stats({ collections: [collection.name] });
    out.push({ name: collection.name, documents: stats.documents, chunks: stats.chunks });
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Undefined when both hold the same counts; otherwise the first difference, in words. */
export function countsDiffer(source: readonly CollectionCounts[], target: readonly CollectionCounts[]): string | undefined {
  const byName = new Map(target.map((c) => [c.name, c]));
  for (const expected of source) {
    const actual = byName.get(expected.name);
    if (!actual) return `collection ${expected.name} is missing in the target`;
    if (actual.documents !== expected.documents || actual.chunks !== expected.chunks) {
      return `collection ${expected.name} has ${actual.documents} documents and ${actual.chunks} chunks in the target, ${expected.documents} and ${expected.chunks} in the source`;
    }
    byName.delete(expected.name);
  }
  const [extra] = byName.keys();
  return extra === undefined ? undefined : `collection ${extra} is in the target but not in the source`;
}
