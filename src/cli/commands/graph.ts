import { intOption, listOption, parse, stringOption } from '../args.ts';
import { progressBar, UsageError, type CommandContext } from '../io.ts';
import { withIndex } from './open.ts';

/** `dossier graph build|entities|show|communities`: the knowledge graph (DESIGN §4). */
export async function graph(argv: string[], context: CommandContext): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === 'build') return build(rest, context);
  if (sub === 'entities') return entities(rest, context);
  if (sub === 'show') return show(rest, context);
  if (sub === 'communities') return communities(rest, context);
  throw new UsageError(
    `${sub ? `unknown graph command "${sub}"` : 'graph needs a command'} (build, entities, show or communities; dossier graph --help lists them)`,
  );
}

async function build(argv: string[], context: CommandContext): Promise<number> {
  const { values } = parse(argv, 'graph build');
  return withIndex(values, context, 'write', async (dossier) => {
    const bar = await progressBar(context.io, 'graph', { unit: 'documents' });
    let report;
    try {
      report = await dossier.graph.build({
        collections: listOption(values, 'collection'),
        rebuild: values.rebuild === true,
        model: stringOption(values, 'model'),
        onProgress: (done, total) => bar.update(done, total),
        signal: context.io.signal,
      });
    } finally {
      bar.stop();
    }
    if (context.json) {
      context.printJson(report);
      return 0;
    }
    const { out } = context;
    context.print(
      `${out.green(`graph of ${report.collections.join(', ') || 'no collection'}`)}: ${report.entities} entities, ` +
        `${report.relationships} relationships, ${report.communities} communities; ${report.documents} documents extracted ` +
        `by ${report.extractor} in ${report.seconds.toFixed(2)}s`,
    );
    for (const failure of report.failures)
      context.print(`  ${out.red('✗')} document ${failure.documentId}, chunks ${failure.chunkIds.join(', ')}: ${failure.message}`);
    return 0;
  });
}

async function entities(argv: string[], context: CommandContext): Promise<number> {
  const { values } = parse(argv, 'graph entities');
  const limit = intOption(values, 'limit', 50, 1, 10_000);
  const offset = intOption(values, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
  return withIndex(values, context, 'read', async (dossier) => {
    const found = await dossier.graph.entities({
      collections: listOption(values, 'collection'),
      query: stringOption(values, 'query'),
      limit,
      offset,
    });
    if (context.json) {
      context.printJson({ entities: found });
      return 0;
    }
    const { out } = context;
    if (found.length === 0) context.print('no entities');
    for (const entity of found) {
      const aliases = entity.aliases.length ? ` ${out.dim(`(also ${entity.aliases.slice(0, 3).join(', ')})`)}` : '';
      context.print(`${out.bold(entity.name)}${aliases} ${out.dim(`[${entity.type} · ${entity.id} · ${entity.chunkIds.length} chunks]`)}`);
      if (entity.description) context.print(`   ${entity.description}`);
    }
    return 0;
  });
}

async function show(argv: string[], context: CommandContext): Promise<number> {
  const { values, positionals } = parse(argv, 'graph show', {
    min: 1,
    max: Infinity,
    missing: 'graph show needs an entity id or name',
  });
  const limit = intOption(values, 'limit', 50, 1, 10_000);
  return withIndex(values, context, 'read', async (dossier) => {
    const shown = await dossier.graph.entity(positionals.join(' '), { collections: listOption(values, 'collection'), limit });
    if (context.json) {
      context.printJson(shown);
      return 0;
    }
    const { out } = context;
    const { entity, relationships } = shown;
    context.print(`${out.bold(entity.name)} ${out.dim(`[${entity.type} · ${entity.id} · ${entity.collection}]`)}`);
    if (entity.aliases.length) context.print(`   also: ${entity.aliases.join(', ')}`);
    if (entity.description) context.print(`   ${entity.description}`);
    context.print(`   mentioned in chunks ${entity.chunkIds.slice(0, 20).join(', ')}${entity.chunkIds.length > 20 ? ', …' : ''}`);
    if (relationships.length === 0) context.print('no relationships');
    for (const r of relationships)
      context.print(
        `  ${r.subject} ${out.cyan(`—${r.predicate}→`)} ${r.object} ${out.dim(`[chunks ${r.chunkIds.slice(0, 5).join(', ')}]`)}`,
      );
    return 0;
  });
}

async function communities(argv: string[], context: CommandContext): Promise<number> {
  const { values } = parse(argv, 'graph communities');
  const level = values.level === undefined ? undefined : intOption(values, 'level', 0, 0, 100);
  const limit = values.limit === undefined ? undefined : intOption(values, 'limit', 50, 1, 100_000);
  return withIndex(values, context, 'read', async (dossier) => {
    const found = await dossier.graph.communities({ collections: listOption(values, 'collection'), level, limit });
    if (context.json) {
      context.printJson({ communities: found });
      return 0;
    }
    const { out } = context;
    if (found.length === 0) context.print('no communities (build the graph with "dossier graph build")');
    for (const community of found) {
      const stale = community.stale ? ` ${out.yellow('stale')}` : '';
      context.print(
        `${'  '.repeat(community.level)}${out.bold(community.title)} ${out.dim(`[level ${community.level} · ${community.size} entities · ${community.id}]`)}${stale}`,
      );
      if (community.summary)
        context.print(`${'  '.repeat(community.level)}   ${community.summary} ${out.dim(`[chunks ${community.chunkIds.join(', ')}]`)}`);
    }
    return 0;
  });
}
