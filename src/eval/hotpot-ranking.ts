import type { Dossier } from '../dossier.ts';
import type { AgentResult } from '../agent/run-agent.ts';
import type { LedgerEntry } from '../evidence/ledger.ts';
import { stripCitationMarkers } from '../protocol/citations.ts';

/**
 * The HotpotQA protocol's final evidence ranking of a run (Recall@k is measured over it): cited
 * evidence in citation order, then the rest by how much of the question and the answer it supports
 * (terms weighted by their rarity in the whole index), then by the fused rank of the searches that
 * found it. Uses no gold labels. The agent itself ranks only by the ledger (`AgentResult.evidence`).
 */
export async function rankHotpotEvidence(
  dossier: Dossier,
  question: string,
  result: Pick<AgentResult, 'evidence' | 'citations' | 'answer'>,
): Promise<LedgerEntry[]> {
  const citedIds = new Set(result.citations.map((c) => c.id));
  const cited = result.evidence.filter((entry) => citedIds.has(entry.id));
  const rest = result.evidence.filter((entry) => !citedIds.has(entry.id));
  if (rest.length < 2) return [...cited, ...rest];
  const tokenizer = dossier.tokenizer;
  const questionAndAnswer = `${question}\n${result.answer}`;
  const wanted = [...new Set(tokenizer.terms(stripCitationMarkers(questionAndAnswer, ' ')))];
  const { chunks, frequencies } = await dossier.store.documentFrequencies(wanted);
  const weight = new Map(wanted.map((term) => [term, Math.log(1 + (chunks + 1) / ((frequencies.get(term) ?? 0) + 0.5))]));
  const citedText = cited.map((entry) => entry.chunk.text.toLowerCase()).join('\n');
  const support = new Map(
    rest.map((entry) => {
      const terms = new Set(tokenizer.terms(`${entry.chunk.title} ${entry.chunk.text}`));
      let sum = 0;
      for (const [term, w] of weight) if (terms.has(term)) sum += w;
      // Evidence that the cited evidence names (by its title) is what a reader would open next.
      const name = entry.chunk.title.replace(/\s*\([^)]*\)\s*$/, '').toLowerCase();
      if (name.length > 3 && citedText.includes(name)) sum *= 2;
      return [entry, sum];
    }),
  );
  return [...cited, ...rest.sort((a, b) => support.get(b)! - support.get(a)! || b.fusedScore - a.fusedScore)];
}
