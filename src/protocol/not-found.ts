/**
 * How a model says, in structure and not in words, that the documents do not answer the question:
 * provider metadata `{ dossier: { notFound: true } }` on its answering turn. The run then ends with
 * finish reason `no-evidence` even when the answer cites what it did find. Models that never set it
 * (most real ones) end `no-evidence` when their answer cites nothing.
 */
export const NOT_FOUND_METADATA = { dossier: { notFound: true } } as const;

export function declaresNotFound(providerMetadata: unknown): boolean {
  const dossier = (providerMetadata as { dossier?: { notFound?: unknown } } | undefined)?.dossier;
  return dossier?.notFound === true;
}
