import { z } from 'zod';
import { reciprocalRankFusion } from '../../retrieve/fuse.ts';
import type { StoredChunk } from '../../store/types.ts';
import type { AgentTool, ToolContext } from './tool.ts';
import { formatEvidence } from '../../evidence/evidence-format.ts';

const input = z.object({
  query: z.string().min(1).max(2000).describe('What to look for: keywords, a question or a statement'),
  k: z.number().int().min(1).max(20).optional().describe('How many passages (default 6)'),
  filter: z.record(z.string(), z.unknown()).optional().describe('Mongo-style filter over document fields and metadata.<path>, e.g. {"metadata.year":{"$gte":2020}}'),
  strategy: z
    .enum(['hybrid', 'fulltext', 'vector', 'rag-fusion', 'hyde'])
    .optional()
    .describe('hybrid (default); rag-fusion and hyde need a configured model'),
});

type ScoredChunk = { chunk: StoredChunk; score: number };

async function strategyHits(query: string, k: number, strategy: string, filter: Record<string, unknown> | undefined, context: ToolContext): Promise<ScoredChunk[]> {
  const search = (q: string, mode: 'hybrid' | 'fulltext' | 'vector' = 'hybrid') =>
    context.knowledge.retriever.searchChunks({ query: q, scope: context.scope, mode, k, filter });
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
  return reciprocalRankFusion(lists.map((items) => ({ items })), (hit) => hit.chunk.id)
    .slice(0, k)
    .map(({ item, score }) => ({ ...item, score }));
}

export const searchKnowledge: AgentTool<z.infer<typeof input>> = {
  name: 'search_knowledge',
  description:
    'Search the indexed documents (hybrid BM25 + vector). Returns passages, each with an evidence id like E3 to cite as [E3]. ' +
    'Search again with sharper or different words when results miss; several searches may run at once.',
  inputSchema: input,
  searches: true,
  async execute({ query, k = 6, filter, strategy = 'hybrid' }, context) {
    context.signal.throwIfAborted();
    const hits = await strategyHits(query, k, strategy, filter, context);
    // A call stopped while searching leaves no evidence behind.
    context.signal.throwIfAborted();
    const added = context.ledger.addHits(
      hits,
      { step: context.step, query, tool: 'search_knowledge' },
    );
    const entries = added.map((item) => item.entry);
    const newEvidence = added.filter((item) => item.isNew).map((item) => item.entry);
    return {
      raw: { query, strategy, hits: entries.map((entry) => ({ id: entry.id, chunkId: entry.chunk.id, documentId: entry.chunk.documentId, title: entry.chunk.title, score: entry.score })) },
      forModel: formatEvidence(entries, context.resultTokens),
      evidence: entries,
      newEvidence,
      summary: `${hits.length} passages for "${query.slice(0, 80)}" (${newEvidence.length} new)`,
    };
  },
};
