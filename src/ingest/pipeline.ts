import { readFile, readdir, realpath, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { dirname, extname, join, relative, resolve, sep } from 'node:path';
import { glob } from 'tinyglobby';
import { DossierError, oneLine } from '../errors/index.ts';
import type { Embedder } from '../embed/embedder.ts';
import type { IngestOutcome, Store, UpsertStatus } from '../store/types.ts';
import type { Tokenizer } from '../text/tokenize.ts';
import type { ChunkOptions } from './chunk.ts';
import type { Describer } from './describe.ts';
import { closeOcr } from './ocr/index.ts';
import {
  isIncludeOnly,
  prepareFile,
  prepareRecord,
  sha256,
  type DocumentRecord,
  type IncludeOnlyDocument,
  type PrepareResult,
  type PrepareSettings,
  type PreparedDocument,
} from './prepare.ts';
import { isRetryable } from './retryable.ts';
import type { Block } from './types.ts';
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
  /** Worker threads for parsing and preparing; 0 prepares in this thread. Default: one per core, for batches of 8+ files and 16+ MB. */
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

/** Never documents: passed over without a word (other hidden folders are reported as skipped). */
const SKIPPED_DIRECTORIES = new Set(['node_modules', '.git', '.svn', '.hg']);
/**
 * Worker threads pay for themselves only on big batches: each starts its own module graph (a
 * quarter to half a second, more from sources), while one thread prepares plain text at 2–3 MB/s.
 * Below these, everything is prepared in this thread (a 4 MB tree: 2.5 s with two workers, 1.0 s without).
 */
const WORKER_MIN_FILES = 8;
const WORKER_MIN_BYTES = 16_000_000;

/** What preparing one file came to, before it is written. */
type Prepared =
  | { kind: 'unchanged' }
  | { kind: 'remembered'; recorded: IngestOutcome }
  | { kind: 'parsed'; contentHash: string; recorded?: IngestOutcome; result: PrepareResult }
  | { kind: 'error'; contentHash?: string; recorded?: IngestOutcome; error: unknown };

/** What a file of the run came to, as the files that include it need to know. */
type FileOutcome = { kind: 'document' } | { kind: 'include-only'; from: string[] } | { kind: 'none'; reason: string };

/** Error codes that are the file's own, worth remembering against its bytes. */
const REMEMBERED_CODES = new Set(['parse-failed', 'empty-document', 'encrypted-document', 'unsupported-format', 'skipped']);

function rememberable(error: unknown): boolean {
  return DossierError.isInstance(error) && REMEMBERED_CODES.has(error.code) && !isRetryable(error);
}

const OCR_EXTENSIONS = new Set(['png', 'jpg', 'jpeg', 'jpe', 'tif', 'tiff', 'webp', 'bmp', 'gif']);

/** Images are read by OCR, seconds each: they go after the text files. */
function needsOcr(path: string): boolean {
  return OCR_EXTENSIONS.has(extname(path).slice(1).toLowerCase());
}

function useWorkers(files: readonly FoundFile[]): boolean {
  return files.length >= WORKER_MIN_FILES && files.reduce((sum, file) => sum + file.size, 0) >= WORKER_MIN_BYTES;
}

function skipInto(report: IngestReport, path: string, reason: string): void {
  report.skipped++;
  report.skippedFiles.push({ path, reason });
}

/**
 * Where an include points: relative to the including file, or, written with a leading "/", to the
 * ingested tree (as Sphinx reads it). Undefined when that is outside the tree (or a docutils
 * standard file, `<isonum.txt>`): such a target is never read.
 */
function includeTarget(file: FoundFile, written: string): string | undefined {
  const clean = written.trim();
  if (/^<.*>$/.test(clean)) return undefined;
  const target = clean.startsWith('/') ? join(file.root, clean) : resolve(dirname(file.path), clean);
  return target.startsWith(file.root.endsWith(sep) ? file.root : file.root + sep) ? target : undefined;
}

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
   * Files are parsed and prepared ahead (in worker threads when the batch is large) and written in
   * input order, one transaction per document, so an interrupted run keeps every document it
   * finished. Images come after the text files (OCR is slow: text is searchable first); files that
   * only include others are resolved last, when every other file's outcome is known.
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
    const hidden: { path: string; reason: string }[] = [];
    const found = (await expandInputs(inputs, report.failed, options.sync ? gone : undefined, hidden)).filter(
      (file) => !excluded.has(file.path) && !excluded.has(file.identity),
    );
    for (const skip of hidden) if (!excluded.has(skip.path)) skipInto(report, skip.path, skip.reason);
    // Stable: text files in input order, then images in input order.
    const ordered = [...found.filter((file) => !needsOcr(file.path)), ...found.filter((file) => needsOcr(file.path))];
    const files = found.map((file) => file.path);
    const inRun = new Set(files);
    const byPath = new Map(found.map((file) => [file.path, file]));
    const bytesTotal = found.reduce((sum, file) => sum + file.size, 0);
    let bytesDone = 0;
    const collection = options.collection ?? 'default';
    const settings = this.settings(options.chunking, options.ocr);
    const workers = options.workers ?? (useWorkers(found) ? undefined : 0);
    const ownPool = options.preparePool || workers === 0 ? undefined : new PreparePool(workers);
    const pool = options.preparePool ?? ownPool;
    const local = {};
    const window = (pool?.size ?? 1) * 8; // deep enough that neither the workers nor the writer wait on each other
    // Outcomes of failed and skipped files are remembered against their bytes, unless OCR was off (with it on they may read).
    const remember = options.ocr !== false && this.store.recordIngestOutcome ? this.store : undefined;

    const prepare = async (path: string): Promise<Prepared> => {
      let contentHash: string | undefined;
      let recorded: IngestOutcome | undefined;
      try {
        const bytes = await readFile(path);
        contentHash = sha256(bytes);
        if ((await this.store.contentHashOf(collection, path)) === contentHash) return { kind: 'unchanged' };
        recorded = await this.store.ingestOutcomeOf?.(collection, path);
        if (recorded?.contentHash === contentHash) return { kind: 'remembered', recorded };
        const task = { path, bytes: new Uint8Array(bytes), contentHash, settings, metadata: options.metadata };
        return { kind: 'parsed', contentHash, recorded, result: await (pool ? pool.prepare(task) : prepareFile(task, local)) };
      } catch (error) {
        return { kind: 'error', contentHash, recorded, error };
      }
    };

    // What each file of this run came to, for the files that include it.
    const outcomes = new Map<string, FileOutcome>();
    const includeOnly: { file: FoundFile; document: IncludeOnlyDocument; contentHash: string }[] = [];
    const settle = async (path: string, prepared: Prepared): Promise<void> => {
      if (prepared.kind === 'unchanged') {
        report.skipped++;
        outcomes.set(path, { kind: 'document' });
      } else if (prepared.kind === 'remembered') {
        // Not read again, but still what it was: a failure stays a failure (the summary and --strict count it).
        const { outcome, reason } = prepared.recorded;
        if (outcome === 'failed') report.failed.push({ path, error: `${reason} (unchanged since it failed: not parsed again)` });
        else skipInto(report, path, `unchanged since it was skipped: ${reason}`);
        outcomes.set(path, { kind: 'none', reason });
      } else if (prepared.kind === 'error') {
        const reason = oneLine(prepared.error);
        const skipped = DossierError.isInstance(prepared.error) && prepared.error.code === 'skipped';
        if (skipped) skipInto(report, path, reason);
        else report.failed.push({ path, error: reason });
        outcomes.set(path, { kind: 'none', reason });
        if (remember && prepared.contentHash && rememberable(prepared.error))
          await remember.recordIngestOutcome!({
            collection,
            source: path,
            contentHash: prepared.contentHash,
            outcome: skipped ? 'skipped' : 'failed',
            reason,
          });
      } else if (isIncludeOnly(prepared.result)) {
        includeOnly.push({ file: byPath.get(path)!, document: prepared.result, contentHash: prepared.contentHash });
      } else {
        try {
          countInto(report, await this.commit(prepared.result, collection, options.describer));
          outcomes.set(path, { kind: 'document' });
          if (prepared.recorded) await this.store.forgetIngestOutcome?.(collection, path);
        } catch (error) {
          report.failed.push({ path, error: oneLine(error) }); // a store or embedder failure: not the file's, so not remembered
          outcomes.set(path, { kind: 'none', reason: oneLine(error) });
        }
      }
    };

    const pending: { path: string; size: number; result: Promise<Prepared> }[] = [];
    let next = 0;
    try {
      while (next < ordered.length || pending.length > 0) {
        while (next < ordered.length && pending.length < window && !options.signal?.aborted) {
          const { path, size } = ordered[next++];
          pending.push({ path, size, result: prepare(path) });
        }
        const item = pending.shift();
        if (!item) break;
        const done = report.ingested + report.skipped - hidden.length + report.failed.length;
        options.onProgress?.({ done, total: files.length, bytesDone, bytesTotal, path: item.path });
        await settle(item.path, await item.result);
        bytesDone += item.size;
      }
      if (!options.signal?.aborted)
        await this.followIncludes(includeOnly, { collection, options, report, outcomes, inRun, local: settings.chunking });
    } finally {
      // Worker threads take their OCR engines with them; one started in this thread is stopped here.
      await Promise.all([ownPool?.close(), pool ? undefined : closeOcr()]);
    }
    options.onProgress?.({ done: files.length, total: files.length, bytesDone: bytesTotal, bytesTotal, path: '' });
    if (options.sync) report.removed = await this.removeMissing(collection, inputs, inRun, gone);
    if (options.describer?.tally) report.descriptions = { ...options.describer.tally };
    report.seconds = round((performance.now() - started) / 1000);
    return report;
  }

  /**
   * Files with nothing of their own but includes. A target inside the ingested tree that this run
   * ingested is where the content lives: the including file is skipped, naming it. A target inside
   * the tree that is no document of its own (a fragment, or a file next to a single file named) is
   * read and ingested under the including file's title. A target outside the tree is never read.
   */
  private async followIncludes(
    pending: readonly { file: FoundFile; document: IncludeOnlyDocument; contentHash: string }[],
    run: {
      collection: string;
      options: IngestOptions;
      report: IngestReport;
      outcomes: Map<string, FileOutcome>;
      inRun: ReadonlySet<string>;
      local?: ChunkOptions;
    },
  ): Promise<void> {
    const { options, report, outcomes, inRun } = run;
    const byPath = new Map(pending.map((entry) => [entry.file.path, entry]));
    const resolving = new Set<string>();

    const resolveOne = async (entry: (typeof pending)[number]): Promise<FileOutcome> => {
      const { file, document } = entry;
      const known = outcomes.get(file.path);
      if (known) return known;
      resolving.add(file.path);
      const from: string[] = [];
      const fragments: string[] = [];
      const reasons: string[] = [];
      for (const written of document.includes) {
        const target = includeTarget(file, written);
        if (!target) reasons.push(`its include ${written} lies outside the ingested tree`);
        else if (resolving.has(target)) reasons.push(`its include ${written} includes it back`);
        else if (byPath.has(target)) {
          const outcome = await resolveOne(byPath.get(target)!);
          if (outcome.kind === 'document') from.push(target);
          else if (outcome.kind === 'include-only') from.push(...outcome.from);
          else reasons.push(`its include ${written} was not ingested (${outcome.reason})`);
        } else if (inRun.has(target)) {
          const outcome = outcomes.get(target);
          if (outcome?.kind === 'document') from.push(target);
          else reasons.push(`its include ${written} was not ingested (${outcome?.kind === 'none' ? outcome.reason : 'not read'})`);
        } else if ((await stat(target).catch(() => undefined))?.isFile()) fragments.push(target);
        else reasons.push(`its include ${written} is not found`);
      }
      let outcome: FileOutcome;
      if (fragments.length) outcome = await this.ingestThroughIncludes(entry, fragments, run);
      else if (from.length) {
        outcome = { kind: 'include-only', from };
        skipInto(report, file.path, `include-only: its content is ingested from ${from.join(', ')}`);
      } else {
        const reason = `include-only: ${reasons.join('; ')}`;
        outcome = { kind: 'none', reason };
        skipInto(report, file.path, reason);
      }
      outcomes.set(file.path, outcome);
      resolving.delete(file.path);
      return outcome;
    };

    for (const entry of pending) {
      if (options.signal?.aborted) break;
      await resolveOne(entry);
    }
  }

  /** The targets' text under the including file's title, as one document of the including file. */
  private async ingestThroughIncludes(
    entry: { file: FoundFile; document: IncludeOnlyDocument; contentHash: string },
    targets: readonly string[],
    run: { collection: string; options: IngestOptions; report: IngestReport; local?: ChunkOptions },
  ): Promise<FileOutcome> {
    const { file, document } = entry;
    const { parseDocument } = await import('./parsers/registry.ts');
    const blocks: Block[] = [];
    const hashes = [entry.contentHash];
    try {
      for (const target of targets) {
        const bytes = await readFile(target);
        hashes.push(sha256(bytes));
        // A fragment without a known extension (.inc, .txt-less) is in the including file's format.
        const parsed = await parseDocument(
          { path: target, bytes: new Uint8Array(bytes), ocr: run.options.ocr !== false },
          document.mediaType,
        );
        blocks.push(...parsed.blocks);
      }
      const record: DocumentRecord = {
        source: file.path,
        title: document.title,
        mediaType: document.mediaType,
        blocks,
        metadata: { ...document.metadata, includes: targets.map((target) => relative(dirname(file.path), target)) },
        // Changes with the including file and with every target it reads.
        contentHash: sha256(hashes.join('\n')),
        bytes: file.size,
      };
      if ((await this.store.contentHashOf(run.collection, file.path)) === record.contentHash) {
        run.report.skipped++;
        return { kind: 'document' };
      }
      const prepared = prepareRecord(record, this.tokenizer, this.embedder.embedTerms ? this.embedder : undefined, run.local);
      countInto(run.report, await this.commit(prepared, run.collection, run.options.describer));
      return { kind: 'document' };
    } catch (error) {
      const reason = `include-only: its include could not be read (${oneLine(error)})`;
      skipInto(run.report, file.path, reason);
      return { kind: 'none', reason };
    }
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
    const isGone = (source: string) =>
      !present.has(source) && (folders.some((folder) => source.startsWith(folder)) || gone.includes(source));
    for (const document of await this.store.listDocuments(scope)) {
      if (isGone(document.source) && (await this.store.deleteDocument(scope, document.id))) removed++;
    }
    // A remembered failure of a file that is gone is forgotten with it (not counted: it was no document).
    for (const source of (await this.store.ingestOutcomeSources?.(collection)) ?? [])
      if (isGone(source)) await this.store.forgetIngestOutcome?.(collection, source);
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
  /** The tree it was found in: the folder named, or the folder of a file named (includes stay inside it). */
  root: string;
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

  add(path: string, info: Stats, viaLink: boolean, root: string): void {
    const identity = identityOf(info, path);
    const at = this.byIdentity.get(identity);
    if (at === undefined) {
      this.byIdentity.set(identity, this.entries.length);
      this.entries.push({ path, size: info.size, identity, root, viaLink });
    } else if (this.entries[at].viaLink && !viaLink) this.entries[at] = { path, size: info.size, identity, root, viaLink };
  }

  files(): FoundFile[] {
    return this.entries.map(({ path, size, identity, root }) => ({ path, size, identity, root }));
  }
}

async function throughLink(path: string): Promise<boolean> {
  return (await realpath(path).catch(() => path)) !== path;
}

/**
 * Files named, files under folders named (recursively, sorted), and glob matches, each file once;
 * missing inputs become failures, or, when `gone` is given (sync), are collected there instead.
 * Hidden files and folders under a folder (names starting with a dot) are passed over, and listed
 * in `hidden` with the reason when it is given.
 */
export async function expandInputs(
  inputs: readonly string[],
  failed: { path: string; error: string }[],
  gone?: string[],
  hidden?: { path: string; reason: string }[],
): Promise<FoundFile[]> {
  const files = new FileSet();
  const visited = new Map<string, boolean>(); // folder identity → reached through a link
  for (const input of inputs) {
    const info = await stat(input).catch(() => undefined);
    if (info?.isFile()) {
      const path = resolve(input);
      files.add(path, info, await throughLink(path), dirname(path));
    } else if (info?.isDirectory()) {
      const path = resolve(input);
      await walk(path, { files, visited, root: path, hidden }, await throughLink(path));
    } else if (/[*?[\]{}]/.test(input)) {
      const matches = await glob(input, { absolute: true, onlyFiles: true, dot: false });
      if (matches.length === 0) failed.push({ path: input, error: 'no files match this pattern' });
      for (const match of matches.sort()) {
        const path = resolve(match);
        const found = await stat(path).catch(() => undefined);
        if (found?.isFile()) files.add(path, found, await throughLink(path), dirname(path));
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
async function walk(
  directory: string,
  tree: { files: FileSet; visited: Map<string, boolean>; root: string; hidden?: { path: string; reason: string }[] },
  viaLink: boolean,
): Promise<void> {
  const { files, visited, root, hidden } = tree;
  const self = await stat(directory).catch(() => undefined);
  const identity = self ? identityOf(self, directory) : directory;
  const before = visited.get(identity);
  if (before === false || (before === true && viaLink)) return;
  visited.set(identity, viaLink);
  const listed = await readdir(directory, { withFileTypes: true });
  listed.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const entries = listed.filter((entry) => {
    if (SKIPPED_DIRECTORIES.has(entry.name)) return false;
    if (!entry.name.startsWith('.')) return true;
    hidden?.push({
      path: join(directory, entry.name),
      reason: entry.isDirectory()
        ? 'hidden folder (its name starts with a dot): nothing in it is read'
        : 'hidden file (its name starts with a dot)',
    });
    return false;
  });
  const infos = await Promise.all(
    entries.map((entry) => (entry.isDirectory() ? undefined : stat(join(directory, entry.name)).catch(() => undefined))),
  );
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i];
    const path = join(directory, entry.name);
    const link = viaLink || entry.isSymbolicLink();
    const info = infos[i];
    if (entry.isDirectory() || (entry.isSymbolicLink() && info?.isDirectory())) await walk(path, tree, link);
    else if (info?.isFile()) files.add(path, info, link, root); // a broken link has no info and is passed over
  }
}
