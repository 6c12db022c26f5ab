/**
 * The knowledge graph's shapes: what an extractor reads (chunks), what it finds (entities and
 * relationships, each with its provenance), and the one interface every extractor implements.
 */

/** What an extractor reads of a chunk. */
export interface GraphChunk {
  id: number;
  documentId: number;
  collection: string;
  /** Of its document. */
  title: string;
  headingPath: string[];
  text: string;
}

/**
 * Where a name was read: a character span of the chunk's text, or its document's title or one of
 * its headings (`field`), so a graph fact is cited like any other evidence.
 */
export interface Mention {
  chunkId: number;
  field: 'text' | 'title' | 'heading';
  /** Character offsets in the field's string (for `heading`, in `headingPath[heading]`). */
  start: number;
  end: number;
  heading?: number;
}

/**
 * What kind of thing a name is, read from how it is written: a document title, a heading, a
 * capitalised or quoted name, a code identifier, a command-line option or an environment variable.
 */
export type EntityType = 'title' | 'heading' | 'name' | 'code' | 'option' | 'variable';

export interface ExtractedEntity {
  name: string;
  type: EntityType;
  mentions: Mention[];
  /** What the chunks say of it, in a sentence (a model extractor's reading; the offline one gives none). */
  description?: string;
}

export interface ExtractedRelationship {
  /** Names of extracted entities. */
  source: string;
  target: string;
  /**
   * `co-occurs` (in one sentence or code line), `alias` (a name said to be another: "also known
   * as", an acronym in parentheses), or the words that join subject and object ("founded").
   */
  predicate: string;
  weight: number;
  mentions: Mention[];
}

export interface ExtractionContext {
  /** A line about the document the chunks come from (its description), for a model extractor. */
  documentDescription?: string;
  signal?: AbortSignal;
}

export interface ExtractionFailure {
  chunkIds: number[];
  message: string;
}

export interface GraphExtraction {
  entities: ExtractedEntity[];
  relationships: ExtractedRelationship[];
  /** Chunks that could not be read (a model's malformed reply after its retries): reported, never thrown. */
  failures: ExtractionFailure[];
}

/** One interface for every extractor (offline, by model), with one contract suite (`graphExtractorContract`). */
export interface GraphExtractor {
  /** Stored with the graph, so a rebuild by another extractor is a rebuild, not a merge. */
  readonly id: string;
  extract(chunks: readonly GraphChunk[], context?: ExtractionContext): Promise<GraphExtraction>;
}
