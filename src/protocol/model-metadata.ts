/**
 * What a model may tell Dossier in structure, not in words, as provider metadata under `dossier` on
 * its answering turn:
 * - `notFound: true`: the documents do not answer the question. The run then ends with finish reason
 *   `no-evidence` even when the answer cites what it did find. Models that never set it (most real
 *   ones) end `no-evidence` when their answer cites nothing.
 * - `answeredBy`: which of its answerers gave the answer (the offline model's named answerers), for
 *   evaluations and traces.
 * - `questionRule`: which rule decided what kind of question it read (the offline model's named
 *   question rules), reported next to `answeredBy`.
 * - `closest`: with `notFound`, the evidence ids of the passages closest to answering, closest first.
 *   They are listed beside the "not found" as closest passages, never as sources.
 */
export interface DossierModelMetadata {
  notFound?: boolean;
  answeredBy?: string;
  questionRule?: string;
  closest?: string[];
}

export function modelMetadata(providerMetadata: unknown): DossierModelMetadata {
  const dossier = (providerMetadata as { dossier?: Record<string, unknown> } | undefined)?.dossier;
  if (!dossier || typeof dossier !== 'object') return {};
  return {
    ...(dossier.notFound === true ? { notFound: true } : {}),
    ...(typeof dossier.answeredBy === 'string' ? { answeredBy: dossier.answeredBy } : {}),
    ...(typeof dossier.questionRule === 'string' ? { questionRule: dossier.questionRule } : {}),
    ...(Array.isArray(dossier.closest) && dossier.closest.every((id) => typeof id === 'string') && dossier.closest.length
      ? { closest: dossier.closest as string[] }
      : {}),
  };
}

/** The provider metadata that says `metadata` (undefined when there is nothing to say). */
export function providerMetadataOf(
  metadata: DossierModelMetadata,
): { dossier: { notFound?: true; answeredBy?: string; questionRule?: string; closest?: string[] } } | undefined {
  const dossier = {
    ...(metadata.notFound ? { notFound: true as const } : {}),
    ...(metadata.answeredBy ? { answeredBy: metadata.answeredBy } : {}),
    ...(metadata.questionRule ? { questionRule: metadata.questionRule } : {}),
    ...(metadata.closest?.length ? { closest: metadata.closest } : {}),
  };
  return Object.keys(dossier).length ? { dossier } : undefined;
}
