import { createHash } from 'node:crypto';
import { readFile, readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { glob } from 'tinyglobby';
import { DossierError, oneLine } from '../errors/index.ts';
import type { Embedder } from '../embed/embedder.ts';
import { HashedEmbedder } from '../embed/hashed/hashed-embedder.ts';
import type { Store, UpsertStatus } from '../store/types.ts';
import type { Tokenizer } from '../text/tokenize.ts';
import { chunkBlocks, type ChunkOptions } from './chunk.ts';
import type { Block } from './types.ts';

export interface IngestProgress {
  done: number;
  total: number;
  path: string;
}

export interface IngestOptions {
  collection?: string;
  chunking?: ChunkOptions;
  onProgress?: (progress: IngestProgress) => void;
  signal?: AbortSignal;
  /** Absolute paths never to ingest (the index file itself and its -wal/-shm companions). */
  exclude?: readonly string[];
}

export interface IngestReport {
  /** Documents written this run (new or changed). */
  ingested: number;
  /** Of those, documents that replaced an earlier version. */
  updated: number;
  /** Files whose content was already in the index unchanged. */
  skipped: number;
  failed: { path: string; error: string }[];
  /** Documents and chunks written this run. */
  documents: number;
  chunks: number;
  seconds: number;
}

export interface DocumentRecord {
  source: string;
  title: string;
  mediaType: string;
  blocks: Block[];
  metadata?: Record<string, unknown>;
  /** Defaults to a hash of the blocks' text. */
  contentHash?: string;
  bytes?: number;
}

const SKIPPED_DIRECTORIES = new Set(['node_modules', '.git', '.svn', '.hg']);

export class IngestPipeline {
  constructor(
    private readonly store: Store,
    private readonly embedder: Embedder,
    private readonly tokenizer: Tokenizer,
  ) {}

  /** Files, folders (recursively) and glob patterns → one report; a bad file never stops the batch. */
  async ingestPaths(inputs: readonly string[], options: IngestOptions = {}): Promise<IngestReport> {
    const started = performance.now();
    const report: IngestReport = { ingested: 0, updated: 0, skipped: 0, failed: [], documents: 0, chunks: 0, seconds: 0 };
    const excluded = new Set(options.exclude ?? []);
    const files = (await expandInputs(inputs, report.failed)).filter((file) => !excluded.has(file));
    const collection = options.collection ?? 'default';
    // Loaded on first file ingest only: the parser libraries are heavy and search never needs them.
    const { parseDocument } = await import('./parsers/index.ts');
    for (let i = 0; i < files.length; i++) {
      if (options.signal?.aborted) break;
      const path = files[i];
      options.onProgress?.({ done: i, total: files.length, path });
      try {
        const bytes = await readFile(path);
        const contentHash = sha256(bytes);
        if (this.store.contentHashOf(collection, path) === contentHash) {
          report.skipped++;
          continue;
        }
        const parsed = await parseDocument({ path, bytes });
        const result = await this.ingestRecord(
          { source: path, title: parsed.title, mediaType: parsed.mediaType, blocks: parsed.blocks, metadata: parsed.metadata, contentHash, bytes: bytes.length },
          { collection, chunking: options.chunking },
        );
        countInto(report, result);
      } catch (error) {
        report.failed.push({ path, error: oneLine(error) });
      }
    }
    options.onProgress?.({ done: files.length, total: files.length, path: '' });
    report.seconds = round((performance.now() - started) / 1000);
    return report;
  }

  /** Chunk, index and embed one parsed document in a single store transaction. */
  async ingestRecord(record: DocumentRecord, options: { collection?: string; chunking?: ChunkOptions } = {}): Promise<{ status: UpsertStatus; chunks: number; id: number }> {
    const { text, chunks } = chunkBlocks(record.blocks, options.chunking);
    if (chunks.length === 0) throw new DossierError('empty-document', 'no text to index');
    const titleTerms = this.tokenizer.terms(record.title);
    const inputs = chunks.map((chunk) => {
      const headingTerms = chunk.headingPath.length ? this.tokenizer.terms(chunk.headingPath.join(' ')) : [];
      return { ...chunk, terms: this.tokenizer.terms(chunk.text), titleTermList: [...titleTerms, ...headingTerms] };
    });
    const vectors =
      this.embedder instanceof HashedEmbedder
        ? inputs.map((chunk) => (this.embedder as HashedEmbedder).embedTerms([...chunk.titleTermList, ...chunk.terms]))
        : await this.embedder.embed(inputs.map((chunk) => [record.title, ...chunk.headingPath, chunk.text].join('\n')));
    this.store.assertEmbedder({ embedderId: this.embedder.id, dimensions: this.embedder.dimensions });
    const result = this.store.upsertDocument(
      {
        collection: options.collection ?? 'default',
        source: record.source,
        title: record.title,
        mediaType: record.mediaType,
        contentHash: record.contentHash ?? sha256(Buffer.from(text)),
        metadata: record.metadata ?? {},
        text,
        bytes: record.bytes ?? Buffer.byteLength(text),
      },
      inputs.map((chunk) => ({
        ordinal: chunk.ordinal,
        text: chunk.text,
        tokenCount: chunk.tokenCount,
        headingPath: chunk.headingPath,
        page: chunk.page,
        pageEnd: chunk.pageEnd,
        charStart: chunk.charStart,
        charEnd: chunk.charEnd,
        terms: chunk.terms.join(' '),
        titleTerms: chunk.titleTermList.join(' '),
      })),
      vectors,
    );
    return { ...result, chunks: result.status === 'unchanged' ? 0 : chunks.length };
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

export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

/** Files named, files under folders named (recursively, sorted), and glob matches; missing inputs become failures. */
export async function expandInputs(inputs: readonly string[], failed: { path: string; error: string }[]): Promise<string[]> {
  const files = new Set<string>();
  for (const input of inputs) {
    const info = await stat(input).catch(() => undefined);
    if (info?.isFile()) files.add(resolve(input));
    else if (info?.isDirectory()) for (const file of await walk(resolve(input))) files.add(file);
    else if (/[*?[\]{}]/.test(input)) {
      const matches = await glob(input, { absolute: true, onlyFiles: true, dot: false });
      if (matches.length === 0) failed.push({ path: input, error: 'no files match this pattern' });
      for (const match of matches.sort()) files.add(resolve(match));
    } else failed.push({ path: input, error: 'no such file or directory' });
  }
  return [...files];
}

async function walk(directory: string): Promise<string[]> {
  const out: string[] = [];
  const entries = await readdir(directory, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (entry.name.startsWith('.') || SKIPPED_DIRECTORIES.has(entry.name)) continue;
    const path = join(directory, entry.name);
    if (entry.isDirectory()) out.push(...(await walk(path)));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}
