import { SEARCH_MODES, type SearchMode } from '../../retrieve/search.ts';
import { intOption, jsonOption, listOption, parse, stringOption, type Values } from '../args.ts';
import { passagePreview } from '../code-text.ts';
import { UsageError, type CommandContext } from '../io.ts';
import { withIndex } from './open.ts';

export function modeOption(values: Values, fallback: SearchMode): SearchMode {
  const mode = stringOption(values, 'mode') ?? fallback;
  if (!SEARCH_MODES.includes(mode as SearchMode)) throw new UsageError(`--mode must be fulltext, vector, graph or hybrid, got "${mode}"`);
  return mode as SearchMode;
}

export async function search(argv: string[], context: CommandContext): Promise<number> {
  const { values, positionals } = parse(argv, 'search', { max: Infinity });
  const query = positionals.join(' ');
  if (!query.trim()) throw new UsageError('search needs a query');
  const mode = modeOption(values, 'hybrid');
  const k = intOption(values, 'k', 10, 1, 1000);
  const filter = jsonOption(values, 'filter');
  return withIndex(values, context, 'read', async (dossier) => {
    const started = performance.now();
    const hits = await dossier.search({ query, mode, k, filter, collections: listOption(values, 'collection') });
    const ms = Math.round((performance.now() - started) * 100) / 100;
    if (context.json) {
      context.printJson({ hits, ms });
      return 0;
    }
    const { out } = context;
    if (hits.length === 0) context.print('no results');
    hits.forEach((hit, i) => {
      const where = [hit.headingPath.join(' › '), hit.page !== undefined ? `p. ${hit.page}` : ''].filter(Boolean).join(', ');
      context.print(
        `${out.bold(`${i + 1}. ${hit.title}`)} ${out.dim(`[chunk ${hit.chunkId} · doc ${hit.documentId} · ${hit.score.toFixed(4)}]`)}`,
      );
      context.print(`   ${out.dim(hit.source + (where ? ` (${where})` : ''))}`);
      // The passage's prose on a line, its code as an indented block (lines verbatim).
      for (const line of passagePreview(hit.text, out)) context.print(line ? `   ${line}` : '');
    });
    context.print(out.dim(`${hits.length} hits in ${ms} ms (${mode})`));
    return 0;
  });
}
