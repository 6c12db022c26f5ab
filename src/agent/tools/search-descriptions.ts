import { z } from 'zod';
import type { AgentTool } from './tool.ts';

const input = z.object({
  query: z.string().min(1).max(2000).describe('What kind of document you are looking for'),
  k: z.number().int().min(1).max(20).optional().describe('How many documents (default 5)'),
});

function defuse(text: string): string {
  return text.replaceAll('<<<', '‹‹‹').replaceAll('>>>', '›››');
}

export const searchDescriptions: AgentTool<z.infer<typeof input>> = {
  name: 'search_descriptions',
  description:
    'Find whole documents by their descriptions (one summary per document, made at ingest). Returns document ids, titles and ' +
    'descriptions to decide what to read with get_content; descriptions are not evidence and cannot be cited.',
  inputSchema: input,
  async execute({ query, k = 5 }, context) {
    const terms = context.dossier.tokenizer.terms(query);
    const hits = context.dossier.store.searchDescriptions(context.scope, terms, { k });
    const documents = hits.flatMap((hit) => {
      const document = context.dossier.store.getDocument(context.scope, hit.documentId);
      return document ? [{ documentId: document.id, title: document.title, chunks: document.chunkCount, description: document.description, score: hit.score }] : [];
    });
    const forModel = documents.length
      ? documents
          .map((d) => `<<<DOCUMENT id=${d.documentId} title="${defuse(d.title).replaceAll('"', "'")}" chunks=${d.chunks}\n${defuse(d.description)}\nDOCUMENT>>>`)
          .join('\n\n')
      : 'No matching documents.';
    return { raw: { query, documents }, forModel, evidence: [], newEvidence: [], summary: `${documents.length} documents for "${query.slice(0, 80)}"` };
  },
};
