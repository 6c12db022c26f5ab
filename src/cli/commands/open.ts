import { createDossier, type Dossier } from '../../dossier.ts';
import { stringOption, type Values } from '../args.ts';
import type { CommandContext } from '../io.ts';

/**
 * The index named by --db (or $DOSSIER_DB). Read commands open it read-only: they never write to
 * the file, not even a schema or a WAL switch.
 */
export function openIndex(values: Values, context: CommandContext, access: 'read' | 'write'): Promise<Dossier> {
  return createDossier({
    // Flags win; createDossier falls back to the environment (config/) for what is not given.
    db: stringOption(values, 'db'),
    readonly: access === 'read',
    embedder: stringOption(values, 'embedder'),
    reranker: stringOption(values, 'reranker'),
    env: context.io.env,
  });
}

/** Runs `use` with the index open, and closes it whatever happens. */
export async function withIndex<T>(
  values: Values,
  context: CommandContext,
  access: 'read' | 'write',
  use: (dossier: Dossier) => Promise<T>,
): Promise<T> {
  const dossier = await openIndex(values, context, access);
  try {
    return await use(dossier);
  } finally {
    await dossier.close();
  }
}
