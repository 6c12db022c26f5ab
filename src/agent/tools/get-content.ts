import { z } from 'zod';
import { defuseAttribute, formatEvidence } from '../../evidence/evidence-format.ts';
import type { AgentTool } from './tool.ts';

const input = z.object({
  documentId: z.number().int().positive().describe('Document id (from search results or search_descriptions)'),
  fromChunk: z.number().int().min(0).optional().describe('First chunk ordinal to read (default 0)'),
  toChunk: z.number().int().min(0).optional().describe('Last chunk ordinal to read (default fromChunk + 3)'),
});

const MAX_CHUNKS = 8;

export const getContent: AgentTool<z.infer<typeof input>> = {
  name: 'get_content',
  description:
    'Read a document, or a range of its chunks by ordinal, in full. Each chunk comes back with an evidence id to cite. ' +
    `At most ${MAX_CHUNKS} chunks per call.`,
  inputSchema: input,
  async execute({ documentId, fromChunk = 0, toChunk }, context) {
    context.signal.throwIfAborted();
    const document = await context.knowledge.store.getDocument(context.scope, documentId);
    if (!document) throw new Error(`no document ${documentId} in this scope`);
    const last = Math.min(toChunk ?? fromChunk + 3, fromChunk + MAX_CHUNKS - 1);
    if (last < fromChunk) throw new Error(`toChunk (${toChunk}) is before fromChunk (${fromChunk})`);
    const chunks = await context.knowledge.store.getChunkRange(context.scope, documentId, fromChunk, last);
    context.signal.throwIfAborted();
    // Read in full: a flat score keeps these below search hits in the ledger's ranking unless cited.
    const added = context.ledger.addHits(
      chunks.map((chunk) => ({ chunk, score: 0 })),
      { step: context.step, query: `document ${documentId} chunks ${fromChunk}-${last}`, tool: 'get_content' },
    );
    for (const { entry } of added) entry.used = true;
    const entries = added.map((item) => item.entry);
    return {
      raw: { documentId, title: document.title, chunkCount: document.chunkCount, chunks: entries.map((e) => ({ id: e.id, chunkId: e.chunk.id, ordinal: e.chunk.ordinal })) },
      forModel: `Document ${documentId} "${defuseAttribute(document.title)}" has ${document.chunkCount} chunks (ordinals 0–${document.chunkCount - 1}); showing ${fromChunk}–${Math.min(last, document.chunkCount - 1)}.\n\n${formatEvidence(entries, context.resultTokens)}`,
      evidence: entries,
      newEvidence: added.filter((item) => item.isNew).map((item) => item.entry),
      summary: `read ${entries.length} chunks of document ${documentId}`,
    };
  },
};
