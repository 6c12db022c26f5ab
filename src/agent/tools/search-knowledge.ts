import { z } from 'zod';
import { reciprocalRankFusion } from '../../retrieve/fuse.ts';
import type { StoredChunk } from '../../store/types.ts';
import { DOCUMENT_FIELDS } from '../../store/queries/scope.ts';
import type { AgentTool, RunToolContext, ToolContext } from './tool.ts';
import { formatEvidence } from '../../evidence/evidence-format.ts';

const STRATEGIES = ['hybrid', 'fulltext', 'vector', 'rag-fusion', 'hyde'] as const;
/** The strategies that need the run's model to write queries or a passage. */
const GENERATIVE = new Set<string>(['rag-fusion', 'hyde']);
type Strategy = (typeof STRATEGIES)[number];

/** The input schema, naming the metadata keys the index has and only the strategies the run can use. */
function inputFor(metadataKeys: string, strategies: readonly Strategy[]) {
  const fields = Object.keys(DOCUMENT_FIELDS).join(', ');
  return z.object({
    query: z.string().min(1).max(2000).describe('What to look for: keywords, a question or a statement'),
    k: z.number().int().min(1).max(20).optional().describe('How many passages (default 6)'),
    filter: z
      .record(z.string(), z.unknown())
      .optional()
      .describe(
        `Mongo-style filter over the document fields (${fields}) and metadata.<key> ($eq $ne $in $nin $gt $gte $lt $lte $and $or). ${metadataKeys}`,
      ),
    strategy: z
      .enum(strategies as [Strategy, ...Strategy[]])
      .optional()
      .describe(
        `hybrid (default: keywords and meaning, fused), fulltext (exact words), vector (meaning)${strategies.includes('rag-fusion') ? '; rag-fusion (several model-written rewordings, fused) and hyde (searches with a model-written answer passage)' : ''}`,
      ),
  });
}

const input = inputFor('', STRATEGIES);

/** How many documents' metadata is read to name the keys a filter can use, and how many values of each are shown. */
const METADATA_SAMPLE = 200;
const VALUES_PER_KEY = 3;

/** "Metadata keys in the documents searched: year (2023, 2024), team ("blue")." — from a sample of the scope's documents. */
async function metadataKeysOf(run: RunToolContext): Promise<string> {
  const documents = await run.knowledge.store.listDocuments(run.scope, { limit: METADATA_SAMPLE });
  const values = new Map<string, Set<string>>();
  for (const document of documents) {
    for (const [key, value] of Object.entries(document.metadata ?? {})) {
      const seen = values.get(key) ?? new Set<string>();
      if (value !== null && typeof value !== 'object' && seen.size < VALUES_PER_KEY) seen.add(JSON.stringify(value).slice(0, 40));
      values.set(key, seen);
    }
  }
  if (values.size === 0) return 'The documents searched have no metadata keys.';
  const listed = [...values].slice(0, 20).map(([key, seen]) => (seen.size ? `${key} (${[...seen].join(', ')})` : key));
  return `Metadata keys in the documents searched: ${listed.join('; ')}${values.size > 20 ? `; and ${values.size - 20} more` : ''}.`;
}

type ScoredChunk = { chunk: StoredChunk; score: number };

async function strategyHits(
  query: string,
  k: number,
  strategy: string,
  filter: Record<string, unknown> | undefined,
  context: ToolContext,
): Promise<ScoredChunk[]> {
  const search = (q: string, mode: 'hybrid' | 'fulltext' | 'vector' = 'hybrid') =>
    context.knowledge.retriever.searchChunks({ query: q, scope: context.scope, mode, k, filter, signal: context.signal });
  if (strategy === 'hybrid' || strategy === 'fulltext' || strategy === 'vector') return search(query, strategy);
  if (!context.generate) throw new Error(`strategy "${strategy}" needs a configured model; use hybrid`);
  if (strategy === 'hyde') {
    // HyDE: search with a hypothetical answer passage, fused with the query itself.
    const passage = await context.generate(`Write one short factual paragraph that would answer: ${query}\nParagraph:`);
    const lists = await Promise.all([search(query), search(passage.slice(0, 1500), 'vector')]);
    return fuse(lists, k);
  }
  // RAG-Fusion: the query plus model-written variants, fused by reciprocal rank.
  const variants = (await context.generate(`Write 3 different search queries (one per line, no numbering) for: ${query}`))
    .split('\n')
    .map((line) => line.replace(/^[\s\d.)-]+/, '').trim())
    .filter((line) => line.length > 2)
    .slice(0, 3);
  return fuse(await Promise.all([query, ...variants].map((q) => search(q))), k);
}

function fuse(lists: ScoredChunk[][], k: number): ScoredChunk[] {
  return reciprocalRankFusion(
    lists.map((items) => ({ items })),
    (hit) => hit.chunk.id,
  )
    .slice(0, k)
    .map(({ item, score }) => ({ ...item, score }));
}

export const searchKnowledge: AgentTool<z.infer<typeof input>> = {
  name: 'search_knowledge',
  description:
    'Search the indexed documents (hybrid BM25 + vector). Returns passages best first, each fenced as <<<EVIDENCE …>>>; its first line says, in order: ' +
    'its id (cite it as [E3]); documentId=… chunk=… (the chunk ordinal in its document: read it, its neighbours or a range with get_content); ' +
    'page=… where known; #1, #2, … its rank in this search (#1 = best match); ' +
    'weak when the passage holds fewer than half of your key terms or scored low: probably not about your question; ' +
    'the document title in quotes (said once per document in a result), then › the section within the document (its headings below the title). ' +
    'The best passages come whole; a passage that had to be shortened keeps the sentences with your terms, marks each gap "[… N characters left out]" ' +
    'and ends with a [cut: …] note: get_content with its documentId and from reads it whole. A passage already shown in this run comes back as a short reference (shown=above): its text is above. ' +
    'Search again with sharper or different words when results miss; several searches may run at once.',
  inputSchema: input,
  searches: true,
  async forRun(run) {
    const strategies = STRATEGIES.filter((strategy) => run.canGenerate || !GENERATIVE.has(strategy));
    return { ...this, inputSchema: inputFor(await metadataKeysOf(run), strategies) };
  },
  async execute({ query, k = 6, filter, strategy = 'hybrid' }, context) {
    context.signal.throwIfAborted();
    const hits = await strategyHits(query, k, strategy, filter, context);
    // A call stopped while searching leaves no evidence behind.
    context.signal.throwIfAborted();
    const added = context.ledger.addHits(hits, { step: context.step, query, tool: 'search_knowledge' });
    const entries = added.map((item) => item.entry);
    const newEvidence = added.filter((item) => item.isNew).map((item) => item.entry);
    return {
      raw: {
        query,
        strategy,
        hits: entries.map((entry) => ({
          id: entry.id,
          chunkId: entry.chunk.id,
          documentId: entry.chunk.documentId,
          title: entry.chunk.title,
          score: entry.score,
        })),
      },
      forModel: formatEvidence(entries, context.resultTokens, {
        query,
        terms: (text) => context.knowledge.tokenizer.terms(text),
        shown: context.ledger,
      }),
      evidence: entries,
      newEvidence,
      summary: `${hits.length} passages for "${query.slice(0, 80)}" (${newEvidence.length} new)`,
    };
  },
};
