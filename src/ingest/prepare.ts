import { createHash } from 'node:crypto';
import { DossierError } from '../errors/index.ts';
import type { EmbedderRecipe } from '../embed/embedder.ts';
import { HashedEmbedder } from '../embed/hashed/hashed-embedder.ts';
import type { ChunkInput } from '../store/types.ts';
import { Tokenizer } from '../text/tokenize.ts';
import { chunkBlocks, type ChunkOptions } from './chunk.ts';
import { countTerms, describeDocument, topHeadings } from './describe.ts';
import type { Block } from './types.ts';

/**
 * The CPU-bound half of ingestion — chunk, tokenize and (offline) embed — as a pure function, so it
 * runs the same in the main thread or in a worker. Storing is the other half (pipeline.ts).
 */
export interface DocumentRecord {
  source: string;
  title: string;
  mediaType: string;
  blocks: Block[];
  metadata?: Record<string, unknown>;
  /** Defaults to a hash of the document text. */
  contentHash?: string;
  bytes?: number;
}

export interface PreparedDocument {
  source: string;
  title: string;
  mediaType: string;
  metadata: Record<string, unknown>;
  contentHash: string;
  bytes: number;
  text: string;
  /** Extractive description of the whole document (describe.ts); a model may replace it at commit. */
  description: string;
  /** Top-level headings, kept for a model describer. */
  headings: string[];
  /** Index terms of the title and of the description, for the document-level full-text index. */
  titleTerms: string;
  descriptionTerms: string;
  chunks: ChunkInput[];
  /** Present when the embedder is the offline one (computed here); remote embedders embed `embedTexts` later. */
  vectors?: Float32Array[];
  embedTexts: string[];
}

/** Chunk text without the chunker's fence lines: "```python" is layout, and its language is no word of the passage. */
function withoutFences(text: string): string {
  return text.includes('```') ? text.replace(/^`{3,}[^\n`]*$/gm, '') : text;
}

export function sha256(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export function prepareRecord(
  record: DocumentRecord,
  tokenizer: Tokenizer,
  /** An embedder with the `embedTerms` capability embeds here, from the terms just made; others embed later. */
  embedder: { embedTerms?(terms: readonly string[]): Float32Array } | undefined,
  chunking?: ChunkOptions,
): PreparedDocument {
  const { text, chunks } = chunkBlocks(record.blocks, chunking);
  if (chunks.length === 0) throw new DossierError('empty-document', 'no text to index');
  const titleTerms = tokenizer.terms(record.title);
  const inputs: ChunkInput[] = [];
  const vectors: Float32Array[] = [];
  // Counted from the chunks' terms (overlaps count twice, which does not matter for weighting) so
  // the describer need not tokenize the whole document again.
  const termCounts = new Map<string, number>();
  for (const chunk of chunks) {
    const headingTerms = chunk.headingPath.length ? tokenizer.terms(chunk.headingPath.join(' ')) : [];
    const terms = tokenizer.terms(withoutFences(chunk.text));
    countTerms(terms, termCounts);
    const titleTermList = headingTerms.length ? [...titleTerms, ...headingTerms] : titleTerms;
    if (embedder?.embedTerms) vectors.push(embedder.embedTerms(titleTermList.length ? [...titleTermList, ...terms] : terms));
    inputs.push({
      ordinal: chunk.ordinal,
      text: chunk.text,
      tokenCount: chunk.tokenCount,
      headingPath: chunk.headingPath,
      page: chunk.page,
      pageEnd: chunk.pageEnd,
      charStart: chunk.charStart,
      charEnd: chunk.charEnd,
      terms: terms.join(' '),
      titleTerms: titleTermList.join(' '),
    });
  }
  const headings = topHeadings(record.blocks, record.title);
  const description = describeDocument({ title: record.title, text, headings, termCounts }, tokenizer);
  return {
    source: record.source,
    title: record.title,
    mediaType: record.mediaType,
    metadata: record.metadata ?? {},
    contentHash: record.contentHash ?? sha256(text),
    bytes: record.bytes ?? Buffer.byteLength(text),
    text,
    description,
    headings,
    titleTerms: titleTerms.join(' '),
    descriptionTerms: tokenizer.terms(description).join(' '),
    chunks: inputs,
    ...(embedder ? { vectors } : {}),
    embedTexts: embedder ? [] : chunks.map((chunk) => [record.title, ...chunk.headingPath, chunk.text].join('\n')),
  };
}

/** What a worker needs to rebuild the same tokenizer and offline embedder as the main thread. */
export interface PrepareSettings {
  language: string;
  /** The embedder's worker recipe, when it can run in a worker. */
  embedder?: EmbedderRecipe;
  chunking?: ChunkOptions;
  /** false: no OCR (images are skipped, scanned PDF pages get no text). */
  ocr?: boolean;
}

export interface PrepareFileTask {
  path: string;
  bytes: Uint8Array;
  contentHash: string;
  settings: PrepareSettings;
  /** The caller's metadata, over what the parser found. */
  metadata?: Record<string, unknown>;
}

/**
 * A file with no text of its own besides what it includes (`changes.rst` → `.. include:: ../CHANGES.rst`):
 * the pipeline follows its includes within the ingested tree (pipeline.ts).
 */
export interface IncludeOnlyDocument {
  kind: 'include-only';
  source: string;
  title: string;
  mediaType: string;
  /** As written in the file: relative to it (or, starting with "/", to the ingested tree). */
  includes: string[];
  metadata: Record<string, unknown>;
}

export type PrepareResult = PreparedDocument | IncludeOnlyDocument;

export function isIncludeOnly(result: PrepareResult): result is IncludeOnlyDocument {
  return (result as Partial<IncludeOnlyDocument>).kind === 'include-only';
}

/** Parse + prepare one file; used by the worker and by the in-thread fallback alike. */
export async function prepareFile(
  task: PrepareFileTask,
  cache: { tokenizer?: Tokenizer; embedder?: HashedEmbedder; key?: string } = {},
): Promise<PrepareResult> {
  const { parseDocument } = await import('./parsers/registry.ts');
  const key = JSON.stringify(task.settings);
  if (cache.key !== key) {
    cache.key = key;
    cache.tokenizer = new Tokenizer({ language: task.settings.language });
    cache.embedder = task.settings.embedder?.kind === 'offline-hashed' ? new HashedEmbedder(task.settings.embedder.options) : undefined;
  }
  const parsed = await parseDocument({ path: task.path, bytes: task.bytes, ocr: task.settings.ocr !== false });
  if (parsed.hasOwnText === false && parsed.includes?.length) {
    const { title, mediaType, includes } = parsed;
    return { kind: 'include-only', source: task.path, title, mediaType, includes, metadata: { ...parsed.metadata, ...task.metadata } };
  }
  return prepareRecord(
    {
      source: task.path,
      title: parsed.title,
      mediaType: parsed.mediaType,
      blocks: parsed.blocks,
      metadata: { ...parsed.metadata, ...task.metadata },
      contentHash: task.contentHash,
      bytes: task.bytes.length,
    },
    cache.tokenizer!,
    cache.embedder,
    task.settings.chunking,
  );
}
