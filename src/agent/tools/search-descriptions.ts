import { z } from 'zod';
import { formatDocuments } from '../../evidence/evidence-format.ts';
import type { AgentTool } from './tool.ts';

const input = z.object({
  query: z.string().min(1).max(2000).describe('What kind of document you are looking for'),
  k: z.number().int().min(1).max(20).optional().describe('How many documents (default 5)'),
});

export const searchDescriptions: AgentTool<z.infer<typeof input>> = {
  name: 'search_descriptions',
  description:
    'Find whole documents by their descriptions (one summary per document, made at ingest). Returns document ids, titles and ' +
    'descriptions to decide what to read with get_content; descriptions are not evidence and cannot be cited.',
  inputSchema: input,
  async execute({ query, k = 5 }, context) {
    context.signal.throwIfAborted();
    const terms = context.knowledge.tokenizer.terms(query);
    const hits = await context.knowledge.store.searchDescriptions(context.scope, terms, { k });
    const found = await Promise.all(
      hits.map(async (hit) => ({ hit, document: await context.knowledge.store.getDocument(context.scope, hit.documentId) })),
    );
    context.signal.throwIfAborted();
    const documents = found.flatMap(({ hit, document }) => {
      return document
        ? [
            {
              documentId: document.id,
              title: document.title,
              chunks: document.chunkCount,
              description: document.description,
              score: hit.score,
            },
          ]
        : [];
    });
    return {
      raw: { query, documents },
      forModel: formatDocuments(documents),
      evidence: [],
      newEvidence: [],
      summary: `${documents.length} documents for "${query.slice(0, 80)}"`,
    };
  },
};
