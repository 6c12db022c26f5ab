/** A pooled multi-hop set (HotpotQA format) as graph chunks: one chunk, and one document, per paragraph title. */
import { loadHotpot } from '../src/eval/hotpotqa.ts';
import type { GraphChunk } from '../src/graph/index.ts';

export function loadGraphCorpus(file: string) {
  const data = loadHotpot(file);
  const titles = [...data.paragraphs.keys()];
  const chunks: GraphChunk[] = titles.map((title, id) => ({
    id,
    documentId: id,
    collection: 'default',
    title,
    headingPath: [title],
    text: data.paragraphs.get(title)!,
  }));
  return { data, titles, chunks };
}
