import { z } from 'zod';
import { defuseAttribute, formatEvidence } from '../../evidence/evidence-format.ts';
import type { AgentTool } from './tool.ts';

const MAX_CHUNKS = 8;

const input = z.object({
  documentId: z.number().int().positive().describe('The documentId of an evidence block (or of search_descriptions)'),
  from: z.number().int().min(0).optional().describe("First chunk ordinal to read: an evidence block's chunk (default 0)"),
  to: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe(`Last chunk ordinal to read (default: from, i.e. that one chunk whole; from+1 adds the next). At most ${MAX_CHUNKS} chunks`),
  // Older spellings, still accepted (recorded runs replay with them).
  fromChunk: z.number().int().min(0).optional(),
  toChunk: z.number().int().min(0).optional(),
});

export const getContent: AgentTool<z.infer<typeof input>> = {
  name: 'get_content',
  description:
    'Read chunks of one document in full, by ordinal: {documentId, from} reads the chunk an evidence block names (its documentId=… and chunk=…) whole, ' +
    `{documentId, from, to} a range (its neighbours: from-1 to from+1). At most ${MAX_CHUNKS} chunks per call, within the result's token budget. ` +
    'Each chunk comes back as an evidence block with an id to cite; one already shown whole in this run comes back as a reference.',
  inputSchema: input,
  async execute(args, context) {
    context.signal.throwIfAborted();
    const { documentId } = args;
    const first = args.from ?? args.fromChunk ?? 0;
    const document = await context.knowledge.store.getDocument(context.scope, documentId);
    if (!document) throw new Error(`no document ${documentId} in this scope`);
    const asked = args.to ?? args.toChunk ?? (args.fromChunk !== undefined ? first + 3 : first);
    if (asked < first) throw new Error(`to (${asked}) is before from (${first})`);
    if (first >= document.chunkCount)
      throw new Error(`document ${documentId} has chunks 0–${document.chunkCount - 1}; there is no chunk ${first}`);
    const last = Math.min(asked, first + MAX_CHUNKS - 1, document.chunkCount - 1);
    const chunks = await context.knowledge.store.getChunkRange(context.scope, documentId, first, last);
    context.signal.throwIfAborted();
    // Read in full: a flat score keeps these below search hits in the ledger's ranking unless cited.
    const added = context.ledger.addHits(
      chunks.map((chunk) => ({ chunk, score: 0 })),
      { step: context.step, query: `document ${documentId} chunks ${first}-${last}`, tool: 'get_content' },
    );
    for (const { entry } of added) entry.used = true;
    const entries = added.map((item) => item.entry);
    const more = asked > last && last < document.chunkCount - 1 ? ` (at most ${MAX_CHUNKS} per call: read on with from=${last + 1})` : '';
    return {
      raw: {
        documentId,
        title: document.title,
        chunkCount: document.chunkCount,
        chunks: entries.map((e) => ({ id: e.id, chunkId: e.chunk.id, ordinal: e.chunk.ordinal })),
      },
      forModel: `Document ${documentId} "${defuseAttribute(document.title)}" has ${document.chunkCount} chunks (ordinals 0–${document.chunkCount - 1}); showing ${first}–${last}${more}.\n\n${formatEvidence(entries, context.resultTokens, { shown: context.ledger, read: true })}`,
      evidence: entries,
      newEvidence: added.filter((item) => item.isNew).map((item) => item.entry),
      summary: `read ${entries.length} chunks of document ${documentId}`,
    };
  },
};
