import { readFile, readdir, realpath, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { glob } from 'tinyglobby';
import { DossierError, oneLine } from '../errors/index.ts';
import type { Embedder } from '../embed/embedder.ts';
import type { Store, UpsertStatus } from '../store/types.ts';
import type { Tokenizer } from '../text/tokenize.ts';
import type { ChunkOptions } from './chunk.ts';
import type { Describer } from './describe.ts';
import { closeOcr } from './ocr/index.ts';
import { prepareFile, prepareRecord, sha256, type DocumentRecord, type PrepareSettings, type PreparedDocument } from './prepare.ts';
import { PreparePool } from './worker-pool.ts';
import type { IngestProgress, IngestReport } from '../protocol/json-shapes.ts';
export type { IngestProgress, IngestReport } from '../protocol/json-shapes.ts';

export { sha256, type DocumentRecord } from './prepare.ts';

export interface IngestOptions {
  collection?: string;
  chunking?: ChunkOptions;
  onProgress?: (progress: IngestProgress) => void;
  signal?: AbortSignal;
  /** Absolute paths never to ingest (the index file itself and its -wal/-shm companions). */
  exclude?: readonly string[];
  /** Worker threads for parsing and preparing; 0 prepares in this thread. Default: one per core, for batches of 8+ files. */
  workers?: number;
  /**
   * Parsing threads owned by the caller and kept across calls (the queue worker runs one per process,
   * so each job does not start its threads and parsers again); overrides `workers`, never closed here.
   */
  preparePool?: PreparePool;
  /**
   * Writes document descriptions instead of the extractive one made at prepare time (e.g.
   * `modelDescriber` when a model is configured). Runs in the main thread, document by document.
   */
  describer?: Describer;
  /** Merged into every document's metadata (`--metadata k=v`). */
  metadata?: Record<string, unknown>;
  /**
   * Also remove documents of the collection whose files are gone: under a folder that was ingested,
   * or a named file that no longer exists (`--sync`).
   */
  sync?: boolean;
  /** Recognise text in images and in scanned PDF pages (default true; `--no-ocr` turns it off). */
  ocr?: boolean;
}

const SKIPPED_DIRECTORIES = new Set(['node_modules', '.git', '.svn', '.hg']);
const WORKER_THRESHOLD = 8;

export class IngestPipeline {
  constructor(
    private readonly store: Store,
    private readonly embedder: Embedder,
    private readonly tokenizer: Tokenizer,
  ) {}

  private settings(chunking?: ChunkOptions, ocr?: boolean): PrepareSettings {
    return {
      language: this.tokenizer.language,
      ...(this.embedder.workerRecipe ? { embedder: this.embedder.workerRecipe } : {}),
      ...(chunking ? { chunking } : {}),
      ...(ocr === false ? { ocr } : {}),
    };
  }

  /**
   * Files, folders (recursively) and glob patterns → one report; a bad file never stops the batch.
   * Files are parsed and prepared ahead in worker threads and written in input order, one
   * transaction per document, so an interrupted run keeps every document it finished.
   */
  async ingestPaths(inputs: readonly string[], options: IngestOptions = {}): Promise<IngestReport> {
    const started = performance.now();
    const report: IngestReport = {
      ingested: 0,
      updated: 0,
      skipped: 0,
      skippedFiles: [],
      failed: [],
      removed: 0,
      documents: 0,
      chunks: 0,
      seconds: 0,
    };
    // By path and by inode: the index must not be read even when a symbolic link leads to it.
    const excluded = new Set(options.exclude ?? []);
    for (const path of options.exclude ?? []) {
      const info = await stat(path).catch(() => undefined);
      if (info) excluded.add(identityOf(info, path));
    }
    const gone: string[] = [];
    const found = (await expandInputs(inputs, report.failed, options.sync ? gone : undefined)).filter(
      (file) => !excluded.has(file.path) && !excluded.has(file.identity),
    );
    const files = found.map((file) => file.path);
    const bytesTotal = found.reduce((sum, file) => sum + file.size, 0);
    let bytesDone = 0;
    const collection = options.collection ?? 'default';
    const settings = this.settings(options.chunking, options.ocr);
    const workers = options.workers ?? (files.length >= WORKER_THRESHOLD ? undefined : 0);
    const ownPool = options.preparePool || workers === 0 ? undefined : new PreparePool(workers);
    const pool = options.preparePool ?? ownPool;
    const local = {};
    const window = (pool?.size ?? 1) * 8; // deep enough that neither the workers nor the writer wait on each other

    const prepare = async (path: string): Promise<PreparedDocument | 'unchanged'> => {
      const bytes = await readFile(path);
      const contentHash = sha256(bytes);
      if ((await this.store.contentHashOf(collection, path)) === contentHash) return 'unchanged';
      const task = { path, bytes: new Uint8Array(bytes), contentHash, settings, metadata: options.metadata };
      return pool ? pool.prepare(task) : prepareFile(task, local);
    };

    const pending: { path: string; size: number; result: Promise<PreparedDocument | 'unchanged'> }[] = [];
    let next = 0;
    try {
      while (next < files.length || pending.length > 0) {
        while (next < files.length && pending.length < window && !options.signal?.aborted) {
          const { path, size } = found[next++];
          const result = prepare(path);
          result.catch(() => {}); // awaited in order below; this only keeps Node from calling it unhandled meanwhile
          pending.push({ path, size, result });
        }
        const item = pending.shift();
        if (!item) break;
        const done = report.ingested + report.skipped + report.failed.length;
        options.onProgress?.({ done, total: files.length, bytesDone, bytesTotal, path: item.path });
        try {
          const prepared = await item.result;
          if (prepared === 'unchanged') report.skipped++;
          else countInto(report, await this.commit(prepared, collection, options.describer));
        } catch (error) {
          if (DossierError.isInstance(error) && error.code === 'skipped') {
            report.skipped++;
            report.skippedFiles.push({ path: item.path, reason: oneLine(error) });
          } else report.failed.push({ path: item.path, error: oneLine(error) });
        }
        bytesDone += item.size;
      }
    } finally {
      // Worker threads take their OCR engines with them; one started in this thread is stopped here.
      await Promise.all([ownPool?.close(), pool ? undefined : closeOcr()]);
    }
    options.onProgress?.({ done: files.length, total: files.length, bytesDone: bytesTotal, bytesTotal, path: '' });
    if (options.sync) report.removed = await this.removeMissing(collection, inputs, new Set(files), gone);
    if (options.describer?.tally) report.descriptions = { ...options.describer.tally };
    report.seconds = round((performance.now() - started) / 1000);
    return report;
  }

  /** Deletes documents of the collection whose file is gone: under an ingested folder, or named and missing. */
  private async removeMissing(
    collection: string,
    inputs: readonly string[],
    present: ReadonlySet<string>,
    gone: readonly string[],
  ): Promise<number> {
    const folders: string[] = [];
    for (const input of inputs) if ((await stat(input).catch(() => undefined))?.isDirectory()) folders.push(resolve(input) + sep);
    const scope = { collections: [collection] };
    let removed = 0;
    for (const document of await this.store.listDocuments(scope)) {
      const underFolder = folders.some((folder) => document.source.startsWith(folder));
      if (present.has(document.source) || !(underFolder || gone.includes(document.source))) continue;
      if (await this.store.deleteDocument(scope, document.id)) removed++;
    }
    return removed;
  }

  /** Chunk, index and embed one parsed document in a single store transaction. */
  async ingestRecord(
    record: DocumentRecord,
    options: { collection?: string; chunking?: ChunkOptions; describer?: Describer } = {},
  ): Promise<{ status: UpsertStatus; chunks: number; id: number }> {
    return this.commit(
      prepareRecord(record, this.tokenizer, this.embedder.embedTerms ? this.embedder : undefined, options.chunking),
      options.collection ?? 'default',
      options.describer,
    );
  }

  private async commit(
    prepared: PreparedDocument,
    collection: string,
    describer?: Describer,
  ): Promise<{ status: UpsertStatus; chunks: number; id: number }> {
    const vectors = prepared.vectors ?? (await this.embedder.embed(prepared.embedTexts));
    let { description, descriptionTerms } = prepared;
    if (describer && (await this.store.contentHashOf(collection, prepared.source)) !== prepared.contentHash) {
      // Only for documents that will be written: a model call per unchanged document would be waste.
      // A describer that fails leaves the extractive description: a description never fails a file.
      const written = await describer({ title: prepared.title, text: prepared.text, headings: prepared.headings }).catch(() => '');
      if (written.trim()) {
        description = written.trim();
        descriptionTerms = this.tokenizer.terms(description).join(' ');
      }
    }
    await this.store.assertEmbedder({ embedderId: this.embedder.id, dimensions: this.embedder.dimensions });
    const result = await this.store.upsertDocument(
      {
        collection,
        source: prepared.source,
        title: prepared.title,
        mediaType: prepared.mediaType,
        contentHash: prepared.contentHash,
        metadata: prepared.metadata,
        text: prepared.text,
        bytes: prepared.bytes,
        description,
        titleTerms: prepared.titleTerms,
        descriptionTerms,
      },
      prepared.chunks,
      vectors,
    );
    return { ...result, chunks: result.status === 'unchanged' ? 0 : prepared.chunks.length };
  }
}

function countInto(report: IngestReport, result: { status: UpsertStatus; chunks: number }): void {
  if (result.status === 'unchanged') {
    report.skipped++;
    return;
  }
  report.ingested++;
  if (result.status === 'updated') report.updated++;
  report.documents++;
  report.chunks += result.chunks;
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

export interface FoundFile {
  path: string;
  size: number;
  /** Device and inode: the same for every path that reaches this file. */
  identity: string;
}

const identityOf = (info: Stats, path: string): string => (info.ino ? `${info.dev}:${info.ino}` : `path:${path}`); // no inode number (some network file systems): by path

/**
 * One entry per file, however many paths reach it (symbolic links, hard links, a folder named
 * twice): identified by device and inode. The path kept is the first one found, unless that went
 * through a symbolic link and a later one does not.
 */
class FileSet {
  private readonly byIdentity = new Map<string, number>();
  private readonly entries: (FoundFile & { viaLink: boolean })[] = [];

  add(path: string, info: Stats, viaLink: boolean): void {
    const identity = identityOf(info, path);
    const at = this.byIdentity.get(identity);
    if (at === undefined) {
      this.byIdentity.set(identity, this.entries.length);
      this.entries.push({ path, size: info.size, identity, viaLink });
    } else if (this.entries[at].viaLink && !viaLink) this.entries[at] = { path, size: info.size, identity, viaLink };
  }

  files(): FoundFile[] {
    return this.entries.map(({ path, size, identity }) => ({ path, size, identity }));
  }
}

async function throughLink(path: string): Promise<boolean> {
  return (await realpath(path).catch(() => path)) !== path;
}

/**
 * Files named, files under folders named (recursively, sorted), and glob matches, each file once;
 * missing inputs become failures, or, when `gone` is given (sync), are collected there instead.
 */
export async function expandInputs(
  inputs: readonly string[],
  failed: { path: string; error: string }[],
  gone?: string[],
): Promise<FoundFile[]> {
  const files = new FileSet();
  const visited = new Map<string, boolean>(); // folder identity → reached through a link
  for (const input of inputs) {
    const info = await stat(input).catch(() => undefined);
    if (info?.isFile()) {
      const path = resolve(input);
      files.add(path, info, await throughLink(path));
    } else if (info?.isDirectory()) {
      const path = resolve(input);
      await walk(path, files, visited, await throughLink(path));
    } else if (/[*?[\]{}]/.test(input)) {
      const matches = await glob(input, { absolute: true, onlyFiles: true, dot: false });
      if (matches.length === 0) failed.push({ path: input, error: 'no files match this pattern' });
      for (const match of matches.sort()) {
        const path = resolve(match);
        const found = await stat(path).catch(() => undefined);
        if (found?.isFile()) files.add(path, found, await throughLink(path));
      }
    } else if (gone) gone.push(resolve(input));
    else failed.push({ path: input, error: 'no such file or directory' });
  }
  return files.files();
}

/**
 * Recursively, in name order. Symbolic links are followed; a folder is read once (again only when
 * first reached through a link and now directly, so its files get their own paths), so a link loop ends.
 */
async function walk(directory: string, files: FileSet, visited: Map<string, boolean>, viaLink: boolean): Promise<void> {
  const self = await stat(directory).catch(() => undefined);
  const identity = self ? identityOf(self, directory) : directory;
  const before = visited.get(identity);
  if (before === false || (before === true && viaLink)) return;
  visited.set(identity, viaLink);
  const entries = (await readdir(directory, { withFileTypes: true })).filter(
    (entry) => !entry.name.startsWith('.') && !SKIPPED_DIRECTORIES.has(entry.name),
  );
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const infos = await Promise.all(
    entries.map((entry) => (entry.isDirectory() ? undefined : stat(join(directory, entry.name)).catch(() => undefined))),
  );
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i];
    const path = join(directory, entry.name);
    const link = viaLink || entry.isSymbolicLink();
    const info = infos[i];
    if (entry.isDirectory() || (entry.isSymbolicLink() && info?.isDirectory())) await walk(path, files, visited, link);
    else if (info?.isFile()) files.add(path, info, link); // a broken link has no info and is passed over
  }
}
